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
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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
        if (meta.fifo()) {
            return batch(params, "DeleteMessageBatchRequestEntry", entry -> delete(meta, entry));
        }
        return deleteTogether(meta, params);
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

    /**
     * A standard queue's deletes go to their partitions as one request per partition (the messages of one
     * receive mostly come from one). An entry whose handle cannot be read fails alone; should a partition's
     * request fail, the entries sent there report that failure.
     */
    private Future<JsonObject> deleteTogether(QueueMeta meta, Params params) {
        List<Params> entries = params.objectList("Entries");
        List<String> ids = entries.stream().map(e -> e.optionalString("Id")).toList();
        BatchRules.checkIds(ids, "DeleteMessageBatchRequestEntry");
        JsonObject[] results = new JsonObject[entries.size()];
        ReceiptHandle[] handles = new ReceiptHandle[entries.size()];
        Map<Integer, List<Integer>> entriesByPartition = new LinkedHashMap<>();
        for (int i = 0; i < entries.size(); i++) {
            try {
                handles[i] = handleOf(meta, entries.get(i).requiredString("ReceiptHandle"));
                entriesByPartition
                        .computeIfAbsent(handles[i].partition(), p -> new ArrayList<>())
                        .add(i);
            } catch (SqsException e) {
                results[i] = MessageCodec.failure(ids.get(i), e);
            }
        }
        List<Future<Void>> trips = new ArrayList<>(entriesByPartition.size());
        entriesByPartition.forEach((partition, indexes) -> {
            List<PartitionRequest.Delete> deletes = indexes.stream()
                    .map(i -> new PartitionRequest.Delete(handles[i].messageId(), handles[i].token()))
                    .toList();
            trips.add(broker.router
                    .execute(meta.name(), partition, new PartitionRequest.DeleteBatch(deletes))
                    .transform(done -> {
                        for (int k = 0; k < indexes.size(); k++) {
                            int i = indexes.get(k);
                            if (done.failed()) {
                                results[i] = SendActions.failureOf(ids.get(i), done.cause());
                                continue;
                            }
                            if (done.result().get(k)) {
                                broker.metrics.deleted(meta.name());
                            }
                            results[i] = new JsonObject().put("Id", ids.get(i));
                        }
                        return Future.<Void>succeededFuture();
                    }));
        });
        return Future.all(trips).map(all -> MessageCodec.batchOf(Arrays.asList(results)));
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
