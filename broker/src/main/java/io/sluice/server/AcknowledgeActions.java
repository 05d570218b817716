package io.sluice.server;

import io.sluice.protocol.Params;
import io.sluice.queue.BatchRules;
import io.sluice.queue.MessageRules;
import io.sluice.queue.PartitionRequest;
import io.sluice.queue.QueueMeta;
import io.sluice.queue.ReceiptHandle;
import io.sluice.queue.SqsException;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/** What a consumer does with a received message: DeleteMessage and ChangeMessageVisibility, single and batched. */
final class AcknowledgeActions {
    private final Broker broker;

    AcknowledgeActions(Broker broker) {
        this.broker = broker;
    }

    Future<JsonObject> deleteMessage(Params params, RequestInfo info) {
        QueueMeta meta = broker.queueOf(params, info);
        return delete(meta, params).map(v -> new JsonObject());
    }

    Future<JsonObject> deleteMessageBatch(Params params, RequestInfo info) {
        QueueMeta meta = broker.queueOf(params, info);
        return batch(params, "DeleteMessageBatchRequestEntry", entry -> delete(meta, entry));
    }

    Future<JsonObject> changeMessageVisibility(Params params, RequestInfo info) {
        QueueMeta meta = broker.queueOf(params, info);
        return changeVisibility(meta, params).map(v -> new JsonObject());
    }

    Future<JsonObject> changeMessageVisibilityBatch(Params params, RequestInfo info) {
        QueueMeta meta = broker.queueOf(params, info);
        return batch(params, "ChangeMessageVisibilityBatchRequestEntry", entry -> changeVisibility(meta, entry));
    }

    private Future<Void> delete(QueueMeta meta, Params params) {
        String text = params.requiredString("ReceiptHandle");
        ReceiptHandle h = handleOf(meta, text);
        return broker.router
                .execute(meta.name(), h.partition(), new PartitionRequest.Delete(h.messageId(), h.token()))
                .map(deleted -> {
                    if (Boolean.TRUE.equals(deleted)) {
                        broker.metrics.deleted(meta.name());
                    }
                    return null;
                });
    }

    private Future<Void> changeVisibility(QueueMeta meta, Params params) {
        String text = params.requiredString("ReceiptHandle");
        Integer timeout = params.optionalInt("VisibilityTimeout");
        if (timeout == null) {
            throw SqsException.missingParameter("VisibilityTimeout");
        }
        int seconds = MessageRules.visibilityTimeout(timeout, 0);
        ReceiptHandle h = handleOf(meta, text);
        return broker.router.execute(
                meta.name(),
                h.partition(),
                new PartitionRequest.ChangeVisibility(h.messageId(), h.token(), seconds * 1000L, text));
    }

    private ReceiptHandle handleOf(QueueMeta meta, String text) {
        ReceiptHandle h = broker.receipts.decode(text);
        if (!h.queueName().equals(meta.name()) || h.partition() >= meta.partitions()) {
            throw ReceiptHandle.invalid(text);
        }
        return h;
    }

    /** Runs one operation per entry; an entry's failure is reported in Failed, not as the request's error. */
    private Future<JsonObject> batch(Params params, String entryName, Function<Params, Future<Void>> op) {
        List<Params> entries = params.objectList("Entries");
        BatchRules.checkIds(entries.stream().map(e -> e.optionalString("Id")).toList(), entryName);
        List<Future<JsonObject>> results = new ArrayList<>(entries.size());
        for (Params entry : entries) {
            String id = entry.optionalString("Id");
            Future<Void> done;
            try {
                done = op.apply(entry);
            } catch (SqsException e) {
                done = Future.failedFuture(e);
            }
            results.add(done.map(v -> new JsonObject().put("Id", id))
                    .recover(err -> Future.succeededFuture(SendActions.failureOf(id, err))));
        }
        return MessageCodec.batchResult(results);
    }
}
