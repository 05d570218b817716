package io.sluice.server;

import io.sluice.protocol.Params;
import io.sluice.queue.QueueAttributes;
import io.sluice.queue.QueueMeta;
import io.sluice.queue.SqsException;
import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * AddPermission and RemovePermission, which SQS keeps as statements of the queue's Policy
 * attribute, one statement per label; {@link QueuePolicy} enforces them for other accounts.
 */
final class PermissionActions {
    private final Broker broker;

    PermissionActions(Broker broker) {
        this.broker = broker;
    }

    Future<JsonObject> addPermission(Params params, RequestInfo info) {
        QueueMeta meta = broker.queueOf(params, info);
        String label = params.requiredString("Label");
        if (!label.matches("[A-Za-z0-9_-]{1,80}")) {
            throw SqsException.invalidParameter("Value " + label + " for parameter Label is invalid."
                    + " Reason: Can only include alphanumeric characters, hyphens, or underscores. 1 to 80 in length.");
        }
        List<String> accounts = params.stringList("AWSAccountIds");
        if (accounts.isEmpty()) {
            throw SqsException.missingParameter("AWSAccountIds");
        }
        List<String> actions = params.stringList("Actions");
        if (actions.isEmpty()) {
            throw SqsException.missingParameter("Actions");
        }
        String arn = broker.urls.arn(meta.name());
        long now = broker.clock.millis();
        return Broker.await(broker.registry.update(meta.name(), m -> {
                    JsonObject policy = policyOf(m, arn);
                    JsonArray statements = policy.getJsonArray("Statement");
                    for (Object s : statements) {
                        if (label.equals(((JsonObject) s).getString("Sid"))) {
                            throw SqsException.invalidParameter(
                                    "Value " + label + " for parameter Label is invalid." + " Reason: Already exists.");
                        }
                    }
                    JsonArray principals = new JsonArray();
                    accounts.forEach(a -> principals.add("arn:aws:iam::" + a + ":root"));
                    JsonArray sqsActions = new JsonArray();
                    actions.forEach(a -> sqsActions.add("SQS:" + a));
                    statements.add(new JsonObject()
                            .put("Sid", label)
                            .put("Effect", "Allow")
                            .put(
                                    "Principal",
                                    new JsonObject()
                                            .put("AWS", principals.size() == 1 ? principals.getValue(0) : principals))
                            .put("Action", sqsActions.size() == 1 ? sqsActions.getValue(0) : sqsActions)
                            .put("Resource", arn));
                    return m.withAttributes(Map.of(QueueAttributes.POLICY, policy.encode()), now);
                }))
                .map(m -> new JsonObject());
    }

    Future<JsonObject> removePermission(Params params, RequestInfo info) {
        QueueMeta meta = broker.queueOf(params, info);
        String label = params.requiredString("Label");
        String arn = broker.urls.arn(meta.name());
        long now = broker.clock.millis();
        return Broker.await(broker.registry.update(meta.name(), m -> {
                    JsonObject policy = policyOf(m, arn);
                    JsonArray statements = policy.getJsonArray("Statement");
                    boolean removed = statements.getList().removeIf(s -> label.equals(statementSid(s)));
                    if (!removed) {
                        throw SqsException.invalidParameter("Value " + label + " for parameter Label is invalid."
                                + " Reason: can't find label on existing policy.");
                    }
                    Map<String, String> change = new HashMap<>();
                    change.put(QueueAttributes.POLICY, statements.isEmpty() ? null : policy.encode());
                    return m.withAttributes(change, now);
                }))
                .map(m -> new JsonObject());
    }

    private static Object statementSid(Object statement) {
        if (statement instanceof JsonObject o) {
            return o.getString("Sid");
        }
        if (statement instanceof Map<?, ?> m) {
            return m.get("Sid");
        }
        return null;
    }

    private static JsonObject policyOf(QueueMeta meta, String arn) {
        String current = meta.attributes().get(QueueAttributes.POLICY);
        JsonObject policy;
        try {
            policy = current == null || current.isEmpty() ? new JsonObject() : new JsonObject(current);
        } catch (RuntimeException e) {
            policy = new JsonObject();
        }
        if (!(policy.getValue("Statement") instanceof JsonArray)) {
            policy.put("Statement", new JsonArray());
        }
        if (!policy.containsKey("Version")) {
            policy.put("Version", "2012-10-17");
        }
        if (!policy.containsKey("Id")) {
            policy.put("Id", arn + "/SQSDefaultPolicy");
        }
        return policy;
    }
}
