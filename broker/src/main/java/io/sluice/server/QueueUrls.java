package io.sluice.server;

import io.sluice.queue.QueueRegistry;
import io.sluice.queue.SqsException;

/**
 * Queue URLs and ARNs. A request may name its queue by a URL with any host (clients behind a
 * load balancer use its address; only the path, /account/name, matters) or by the bare name.
 */
final class QueueUrls {
    private final String baseUrl;
    private final String accountId;
    private final String region;

    QueueUrls(String baseUrl, String accountId, String region) {
        this.baseUrl = baseUrl;
        this.accountId = accountId;
        this.region = region;
    }

    /**
     * The registry's name of an account's queue: the bare name for the node's own account (so a
     * node without access keys, or a key without an account, has the queues it always had), and
     * "account/name" for another account's ('/' is never part of a queue name).
     */
    String internalName(String account, String name) {
        return account.equals(accountId) ? name : account + "/" + name;
    }

    /** The account a registry name belongs to. */
    String accountOf(String internalName) {
        int slash = internalName.indexOf('/');
        return slash < 0 ? accountId : internalName.substring(0, slash);
    }

    /** The queue's name as its account sees it. */
    String plainName(String internalName) {
        return internalName.substring(internalName.indexOf('/') + 1);
    }

    String url(String internalName) {
        return baseUrl + "/" + accountOf(internalName) + "/" + plainName(internalName);
    }

    String arn(String internalName) {
        return "arn:aws:sqs:" + region + ":" + accountOf(internalName) + ":" + plainName(internalName);
    }

    String accountId() {
        return accountId;
    }

    /**
     * The registry name of the queue a QueueUrl parameter names: the account in its path (or the
     * caller's, for a bare name or the "queue" alias) and the last path segment.
     */
    String nameOf(String queueUrl, String callerAccount) {
        String path = queueUrl;
        int scheme = path.indexOf("://");
        if (scheme >= 0) {
            int slash = path.indexOf('/', scheme + 3);
            path = slash < 0 ? "" : path.substring(slash);
        }
        int query = path.indexOf('?');
        if (query >= 0) {
            path = path.substring(0, query);
        }
        while (path.endsWith("/")) {
            path = path.substring(0, path.length() - 1);
        }
        int last = path.lastIndexOf('/');
        String name = last < 0 ? path : path.substring(last + 1);
        if (name.isEmpty()) {
            throw SqsException.invalidParameter("Value " + queueUrl + " for parameter QueueUrl is invalid.");
        }
        String account = callerAccount;
        if (last >= 0) {
            String before = path.substring(0, last);
            String segment = before.substring(before.lastIndexOf('/') + 1);
            if (!segment.isEmpty() && !segment.equals("queue")) {
                if (!isAccountId(segment)) {
                    throw QueueRegistry.doesNotExist();
                }
                account = segment;
            }
        }
        return internalName(account, name);
    }

    /** The registry name of the queue an SQS ARN of this region names, or null when it is not one. */
    String nameOfArn(String arn) {
        String prefix = "arn:aws:sqs:" + region + ":";
        if (arn == null || !arn.startsWith(prefix)) {
            return null;
        }
        String rest = arn.substring(prefix.length());
        int colon = rest.indexOf(':');
        if (colon != 12 || !isAccountId(rest.substring(0, 12)) || colon + 1 >= rest.length()) {
            return null;
        }
        return internalName(rest.substring(0, 12), rest.substring(13));
    }

    /** Twelve digits; checked on every request, so without a regular expression. */
    private static boolean isAccountId(String s) {
        if (s.length() != 12) {
            return false;
        }
        for (int i = 0; i < 12; i++) {
            if (s.charAt(i) < '0' || s.charAt(i) > '9') {
                return false;
            }
        }
        return true;
    }
}
