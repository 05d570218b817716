package io.sluice.server;

import io.sluice.protocol.Params;
import io.sluice.queue.QueueMeta;
import io.sluice.queue.SqsException;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** Queue tags: TagQueue, UntagQueue, ListQueueTags. */
final class TagActions {
    static final int MAX_TAGS = 50;

    private final Broker broker;

    TagActions(Broker broker) {
        this.broker = broker;
    }

    Future<JsonObject> tagQueue(Params params, RequestInfo info) {
        QueueMeta meta = broker.queueOf(params, info);
        Map<String, String> tags = params.stringMap("Tags");
        if (tags.isEmpty()) {
            throw SqsException.missingParameter("Tags");
        }
        checkTags(tags);
        return Broker.await(broker.registry.update(meta.name(), m -> {
                    Map<String, String> merged = new LinkedHashMap<>(m.tags());
                    merged.putAll(tags);
                    checkTags(merged);
                    return m.withTags(merged);
                }))
                .map(m -> new JsonObject());
    }

    Future<JsonObject> untagQueue(Params params, RequestInfo info) {
        QueueMeta meta = broker.queueOf(params, info);
        List<String> keys = params.stringList("TagKeys");
        if (keys.isEmpty()) {
            throw SqsException.missingParameter("TagKeys");
        }
        return Broker.await(broker.registry.update(meta.name(), m -> {
                    Map<String, String> remaining = new LinkedHashMap<>(m.tags());
                    keys.forEach(remaining::remove);
                    return m.withTags(remaining);
                }))
                .map(m -> new JsonObject());
    }

    Future<JsonObject> listQueueTags(Params params, RequestInfo info) {
        QueueMeta meta = broker.queueOf(params, info);
        JsonObject result = new JsonObject();
        if (!meta.tags().isEmpty()) {
            result.put("Tags", new JsonObject(new LinkedHashMap<>(new TreeMap<>(meta.tags()))));
        }
        return Future.succeededFuture(result);
    }

    /** SQS: at most 50 tags, keys of 1 to 128 characters, values of at most 256. */
    static void checkTags(Map<String, String> tags) {
        if (tags.size() > MAX_TAGS) {
            throw SqsException.invalidParameter("Too many tags added for queue. Maximum is " + MAX_TAGS + ".");
        }
        for (Map.Entry<String, String> t : tags.entrySet()) {
            if (t.getKey().isEmpty() || t.getKey().length() > 128) {
                throw SqsException.invalidParameter("Tag keys must be between 1 and 128 characters in length.");
            }
            if (t.getValue() != null && t.getValue().length() > 256) {
                throw SqsException.invalidParameter("Tag values may only be up to 256 characters in length.");
            }
        }
    }
}
