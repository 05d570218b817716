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

    String url(String queueName) {
        return baseUrl + "/" + accountId + "/" + queueName;
    }

    String arn(String queueName) {
        return "arn:aws:sqs:" + region + ":" + accountId + ":" + queueName;
    }

    String accountId() { return accountId; }

    /** The queue name in a QueueUrl parameter; QueueDoesNotExist for another account. */
    String nameOf(String queueUrl) {
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
        if (last < 0) {
            return path;
        }
        String name = path.substring(last + 1);
        String before = path.substring(0, last);
        String account = before.substring(before.lastIndexOf('/') + 1);
        if (!account.isEmpty() && !account.equals(accountId) && !account.equals("queue")) {
            throw QueueRegistry.doesNotExist();
        }
        if (name.isEmpty()) {
            throw SqsException.invalidParameter("Value " + queueUrl + " for parameter QueueUrl is invalid.");
        }
        return name;
    }

    /** The queue name in an ARN, or null when it is not an SQS ARN of this account. */
    String nameOfArn(String arn) {
        String prefix = "arn:aws:sqs:" + region + ":" + accountId + ":";
        return arn != null && arn.startsWith(prefix) ? arn.substring(prefix.length()) : null;
    }
}
