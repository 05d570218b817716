package io.sluice.server;

import io.sluice.protocol.SqsAction;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;
import java.util.Locale;
import java.util.function.Predicate;

/**
 * What a queue's Policy attribute lets another account do, as SQS evaluates it for the actions a
 * policy can grant: a statement whose Effect is Deny and that matches the caller and action
 * refuses; otherwise one whose Effect is Allow and that matches allows; otherwise the caller is
 * refused. A statement matches when its Principal names the caller's account ("*",
 * {"AWS": "*"}, the account id, or "arn:aws:iam::ACCOUNT:root" / any ARN of that account) and its
 * Action names the action ("sqs:*", "SQS:SendMessage", "sqs:Send*", case-insensitive). A batch
 * action is granted by its single action (sqs:SendMessage grants SendMessageBatch). Conditions
 * are not evaluated: a statement with a Condition never allows and always denies.
 */
final class QueuePolicy {
    private QueuePolicy() {}

    static boolean allows(String policyJson, String account, SqsAction action) {
        if (policyJson == null || policyJson.isBlank()) {
            return false;
        }
        JsonArray statements;
        try {
            Object s = new JsonObject(policyJson).getValue("Statement");
            statements =
                    s instanceof JsonArray a ? a : s instanceof JsonObject o ? new JsonArray().add(o) : new JsonArray();
        } catch (RuntimeException e) {
            return false;
        }
        String wanted = "sqs:" + grantedBy(action).toLowerCase(Locale.ROOT);
        boolean allowed = false;
        for (Object o : statements) {
            if (!(o instanceof JsonObject st)
                    || !matchesPrincipal(st.getValue("Principal"), account)
                    || !matchesAction(st.getValue("Action"), wanted)) {
                continue;
            }
            String effect = st.getString("Effect", "");
            if (effect.equals("Deny")) {
                return false;
            }
            if (effect.equals("Allow") && !st.containsKey("Condition")) {
                allowed = true;
            }
        }
        return allowed;
    }

    /** The action a policy grants for this one: batches are granted with their single action. */
    private static String grantedBy(SqsAction action) {
        String name = action.wireName();
        return switch (name) {
            case "SendMessageBatch", "DeleteMessageBatch", "ChangeMessageVisibilityBatch" ->
                name.substring(0, name.length() - "Batch".length());
            default -> name;
        };
    }

    private static boolean matchesPrincipal(Object principal, String account) {
        if ("*".equals(principal)) {
            return true;
        }
        if (principal instanceof JsonObject p) {
            return anyOf(
                    p.getValue("AWS"),
                    v -> v.equals("*") || v.equals(account) || v.startsWith("arn:aws:iam::" + account + ":"));
        }
        return false;
    }

    private static boolean matchesAction(Object action, String wanted) {
        return anyOf(action, v -> matchesPattern(v.toLowerCase(Locale.ROOT), wanted));
    }

    /** IAM action patterns: '*' any run of characters, '?' one character. */
    private static boolean matchesPattern(String pattern, String value) {
        if (pattern.equals("*")) {
            return true;
        }
        StringBuilder regex = new StringBuilder();
        for (char c : pattern.toCharArray()) {
            switch (c) {
                case '*' -> regex.append(".*");
                case '?' -> regex.append('.');
                default -> {
                    if (Character.isLetterOrDigit(c)) {
                        regex.append(c);
                    } else {
                        regex.append('\\').append(c);
                    }
                }
            }
        }
        return value.matches(regex.toString());
    }

    private static boolean anyOf(Object value, Predicate<String> check) {
        if (value instanceof String s) {
            return check.test(s);
        }
        if (value instanceof JsonArray a) {
            for (Object o : a) {
                if (o instanceof String s && check.test(s)) {
                    return true;
                }
            }
        }
        if (value instanceof List<?> l) {
            for (Object o : l) {
                if (o instanceof String s && check.test(s)) {
                    return true;
                }
            }
        }
        return false;
    }
}
