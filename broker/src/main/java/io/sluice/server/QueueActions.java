package io.sluice.server;

import io.sluice.protocol.Params;
import io.sluice.queue.ErrorCode;
import io.sluice.queue.MessageCounts;
import io.sluice.queue.PartitionRequest;
import io.sluice.queue.QueueAttributes;
import io.sluice.queue.QueueMeta;
import io.sluice.queue.QueueNames;
import io.sluice.queue.QueueRegistry;
import io.sluice.queue.RedrivePolicy;
import io.sluice.queue.SqsException;
import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The actions on queues themselves: create, find, list, delete, attributes, purge. */
final class QueueActions {
    /** SQS allows one purge per queue every 60 seconds. */
    static final long PURGE_INTERVAL_MILLIS = 60_000;

    private final Broker broker;
    private final RedriveAttributes redrive;

    QueueActions(Broker broker) {
        this.broker = broker;
        this.redrive = new RedriveAttributes(broker);
    }

    Future<JsonObject> createQueue(Params params, RequestInfo info) {
        String plainName = params.requiredString("QueueName");
        Map<String, String> given = params.stringMap("Attributes");
        boolean fifo = QueueNames.isFifoName(plainName);
        boolean fifoAttribute = "true".equalsIgnoreCase(given.get(QueueAttributes.FIFO_QUEUE));
        if (fifoAttribute && !fifo) {
            throw SqsException.invalidParameter("The name of a FIFO queue can only include alphanumeric characters,"
                    + " hyphens, or underscores, must end with .fifo suffix and be 1 to 80 in length.");
        }
        // A .fifo name without FifoQueue=true is a standard queue name with a dot, which SQS refuses.
        QueueNames.check(plainName, fifo && fifoAttribute);
        // Each account has its own queues: the registry knows them by account and name.
        String name = broker.urls.internalName(info.accountId(), plainName);
        Map<String, String> attributes = QueueAttributes.validate(given, fifo, true);
        RedrivePolicy redrivePolicy = redrive.take(name, fifo, attributes);
        Map<String, String> tags = params.has("tags") ? params.stringMap("tags") : params.stringMap("Tags");
        TagActions.checkTags(tags);
        long now = broker.clock.millis();
        return Broker.await(broker.registry.create(new QueueMeta(
                        name, fifo, broker.config.partitions(), now, now, attributes, tags, 0, redrivePolicy)))
                .map(created -> new JsonObject().put("QueueUrl", broker.urls.url(name)));
    }

    Future<JsonObject> getQueueUrl(Params params, RequestInfo info) {
        String owner = params.optionalString("QueueOwnerAWSAccountId");
        String name = broker.urls.internalName(
                owner == null || owner.isEmpty() ? info.accountId() : owner, params.requiredString("QueueName"));
        QueueMeta meta = broker.registry.find(name);
        if (meta == null) {
            throw QueueRegistry.notKnown(name);
        }
        broker.checkAccess(meta, info);
        return Future.succeededFuture(new JsonObject().put("QueueUrl", broker.urls.url(name)));
    }

    Future<JsonObject> listQueues(Params params, RequestInfo info) {
        String prefix = params.optionalString("QueueNamePrefix");
        List<QueueMeta> matching =
                broker.registry.list(broker.urls.internalName(info.accountId(), prefix == null ? "" : prefix)).stream()
                        .filter(q -> broker.urls.accountOf(q.name()).equals(info.accountId()))
                        .toList();
        return Future.succeededFuture(page(params, matching, "QueueUrls", false));
    }

    Future<JsonObject> deleteQueue(Params params, RequestInfo info) {
        QueueMeta meta = broker.queueOf(params, info);
        // Empty every partition first so no message of the queue outlives it in storage.
        return purgeAll(meta)
                .compose(v -> Broker.await(broker.registry.delete(meta.name())))
                .map(v -> {
                    broker.longPolls.wakeAll(meta.name());
                    return new JsonObject();
                });
    }

    Future<JsonObject> getQueueAttributes(Params params, RequestInfo info) {
        QueueMeta meta = broker.queueOf(params, info);
        List<String> names = params.stringList("AttributeNames");
        if (names.isEmpty()) {
            return Future.succeededFuture(new JsonObject());
        }
        MessageCounts counts = QueueAttributes.needsCounts(names) ? broker.counts(meta.name()) : MessageCounts.NONE;
        Map<String, String> report = QueueAttributes.report(meta, names, broker.urls.arn(meta.name()), counts);
        JsonObject result = new JsonObject();
        if (!report.isEmpty()) {
            result.put("Attributes", new JsonObject(new LinkedHashMap<>(report)));
        }
        return Future.succeededFuture(result);
    }

    Future<JsonObject> setQueueAttributes(Params params, RequestInfo info) {
        QueueMeta meta = broker.queueOf(params, info);
        if (!params.has("Attributes")) {
            throw SqsException.missingParameter("Attributes");
        }
        Map<String, String> validated = QueueAttributes.validate(params.stringMap("Attributes"), meta.fifo(), false);
        boolean setsRedrivePolicy = validated.containsKey(QueueAttributes.REDRIVE_POLICY);
        RedrivePolicy redrivePolicy = redrive.take(meta.name(), meta.fifo(), validated);
        long now = broker.clock.millis();
        return Broker.await(broker.registry.update(meta.name(), m -> {
                    QueueMeta changed = m.withAttributes(validated, now);
                    return setsRedrivePolicy ? changed.withRedrivePolicy(redrivePolicy, now) : changed;
                }))
                .map(m -> new JsonObject());
    }

    Future<JsonObject> purgeQueue(Params params, RequestInfo info) {
        QueueMeta meta = broker.queueOf(params, info);
        long now = broker.clock.millis();
        return Broker.await(broker.registry.update(meta.name(), m -> {
                    if (m.purgedAt() != 0 && now - m.purgedAt() < PURGE_INTERVAL_MILLIS) {
                        throw new SqsException(
                                ErrorCode.PURGE_QUEUE_IN_PROGRESS,
                                "Only one PurgeQueue operation on " + meta.name() + " is allowed every 60 seconds.");
                    }
                    return m.withPurgedAt(now);
                }))
                .compose(m -> purgeAll(meta))
                .map(v -> new JsonObject());
    }

    private Future<Void> purgeAll(QueueMeta meta) {
        List<Future<Void>> purges = new ArrayList<>();
        for (int i = 0; i < meta.partitions(); i++) {
            purges.add(broker.router.execute(meta.name(), i, new PartitionRequest.Purge()));
        }
        return Future.all(purges).mapEmpty();
    }

    /** Queues whose RedrivePolicy names this queue as their dead-letter queue. */
    Future<JsonObject> listDeadLetterSourceQueues(Params params, RequestInfo info) {
        String targetArn = broker.urls.arn(broker.queueOf(params, info).name());
        List<QueueMeta> sources = broker.registry.list("").stream()
                .filter(q -> q.redrivePolicy() != null
                        && targetArn.equals(q.redrivePolicy().deadLetterTargetArn()))
                .toList();
        return Future.succeededFuture(page(params, sources, "queueUrls", true));
    }

    /**
     * One page of queue URLs, in name order, as both list actions answer: MaxResults 1..1000,
     * NextToken naming the last queue of the previous page (handed out only when the caller asked
     * for pages with MaxResults).
     *
     * @param alwaysList whether the list member is present even when empty
     */
    private JsonObject page(Params params, List<QueueMeta> queues, String member, boolean alwaysList) {
        Integer maxResults = params.optionalInt("MaxResults");
        if (maxResults != null && (maxResults < 1 || maxResults > 1000)) {
            throw SqsException.invalidParameter("Value " + maxResults + " for parameter MaxResults is invalid."
                    + " Reason: MaxResults must be an integer between 1 and 1000.");
        }
        String after = decodeToken(params.optionalString("NextToken"));
        int limit = maxResults == null ? 1000 : maxResults;
        JsonArray urls = new JsonArray();
        String last = null;
        boolean more = false;
        for (QueueMeta q : queues) {
            if (after != null && q.name().compareTo(after) <= 0) {
                continue;
            }
            if (urls.size() == limit) {
                more = true;
                break;
            }
            urls.add(broker.urls.url(q.name()));
            last = q.name();
        }
        JsonObject result = new JsonObject();
        if (alwaysList || !urls.isEmpty()) {
            result.put(member, urls);
        }
        if (more && maxResults != null) {
            result.put("NextToken", Base64.getUrlEncoder().encodeToString(last.getBytes(StandardCharsets.UTF_8)));
        }
        return result;
    }

    private static String decodeToken(String token) {
        if (token == null || token.isEmpty()) {
            return null;
        }
        try {
            return new String(Base64.getUrlDecoder().decode(token), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            throw SqsException.invalidParameter("Invalid NextToken value.");
        }
    }
}
