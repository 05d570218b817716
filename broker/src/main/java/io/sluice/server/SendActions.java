package io.sluice.server;

import io.sluice.protocol.Params;
import io.sluice.queue.BatchRules;
import io.sluice.queue.MessageAttributeValue;
import io.sluice.queue.MessageRecord;
import io.sluice.queue.MessageRules;
import io.sluice.queue.PartitionRequest;
import io.sluice.queue.QueueMeta;
import io.sluice.queue.SqsException;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import io.sluice.queue.Ids;
import java.util.concurrent.ThreadLocalRandom;

/** SendMessage and SendMessageBatch. */
final class SendActions {
    private final Broker broker;

    SendActions(Broker broker) {
        this.broker = broker;
    }

    /** A validated message ready for a partition, with its size for the batch limit. */
    private record Outgoing(MessageRecord record, long delayMillis, int size) { }

    Future<JsonObject> sendMessage(Params params, RequestInfo info) {
        QueueMeta meta = broker.queueOf(params);
        Outgoing out = validate(meta, params, info);
        return send(meta, out).map(v -> sentResult(out.record));
    }

    Future<JsonObject> sendMessageBatch(Params params, RequestInfo info) {
        QueueMeta meta = broker.queueOf(params);
        List<Params> entries = params.objectList("Entries");
        BatchRules.checkIds(entries.stream().map(e -> e.optionalString("Id")).toList(),
                "SendMessageBatchRequestEntry");
        List<Object> validated = new ArrayList<>(entries.size());
        long total = 0;
        for (Params entry : entries) {
            try {
                Outgoing out = validate(meta, entry, info);
                total += out.size;
                validated.add(out);
            } catch (SqsException e) {
                validated.add(e);
            }
        }
        BatchRules.checkTotalSize(total);
        List<Future<JsonObject>> results = new ArrayList<>(entries.size());
        for (int i = 0; i < entries.size(); i++) {
            String id = entries.get(i).optionalString("Id");
            Object v = validated.get(i);
            if (v instanceof Outgoing out) {
                results.add(send(meta, out)
                        .map(ok -> sentResult(out.record).put("Id", id))
                        .recover(err -> Future.succeededFuture(failureOf(id, err))));
            } else {
                results.add(Future.succeededFuture(MessageCodec.failure(id, (SqsException) v)));
            }
        }
        return MessageCodec.batchResult(results);
    }

    private Outgoing validate(QueueMeta meta, Params params, RequestInfo info) {
        String body = params.optionalString("MessageBody");
        MessageRules.checkBody(body);
        Map<String, MessageAttributeValue> attributes = MessageCodec.attributesOf(params, "MessageAttributes");
        MessageRules.checkAttributes(attributes);
        Map<String, MessageAttributeValue> system = MessageCodec.attributesOf(params, "MessageSystemAttributes");
        MessageRules.checkSystemAttributes(system);
        int size = MessageRules.size(body, attributes);
        MessageRules.checkSize(size, meta.maximumMessageSize());
        int delay = MessageRules.delaySeconds(params.optionalInt("DelaySeconds"), meta.delaySeconds());
        if (params.has("MessageDeduplicationId")) {
            throw SqsException.invalidParameter("The request includes a parameter that is not valid for this queue type:"
                    + " MessageDeduplicationId.");
        }
        MessageRecord record = new MessageRecord(Ids.newId(), body, attributes, system,
                broker.clock.millis(), info.senderId(), null, null, null);
        return new Outgoing(record, delay * 1000L, size);
    }

    /** A standard queue's message may go to any partition; random spreads load without shared state. */
    private Future<Void> send(QueueMeta meta, Outgoing out) {
        int partition = ThreadLocalRandom.current().nextInt(meta.partitions());
        return broker.router.execute(meta.name(), partition, new PartitionRequest.Send(out.record, out.delayMillis));
    }

    private static JsonObject sentResult(MessageRecord r) {
        JsonObject result = new JsonObject().put("MD5OfMessageBody", r.md5OfBody());
        if (r.md5OfAttributes() != null) {
            result.put("MD5OfMessageAttributes", r.md5OfAttributes());
        }
        if (r.md5OfSystemAttributes() != null) {
            result.put("MD5OfMessageSystemAttributes", r.md5OfSystemAttributes());
        }
        return result.put("MessageId", r.messageId());
    }

    static JsonObject failureOf(String id, Throwable err) {
        SqsException e = err instanceof SqsException s ? s
                : new SqsException(io.sluice.queue.ErrorCode.INTERNAL_FAILURE, "Internal failure.");
        return MessageCodec.failure(id, e);
    }
}
