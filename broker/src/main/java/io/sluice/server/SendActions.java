package io.sluice.server;

import io.sluice.protocol.Params;
import io.sluice.queue.BatchRules;
import io.sluice.queue.ErrorCode;
import io.sluice.queue.FifoRules;
import io.sluice.queue.Ids;
import io.sluice.queue.MessageAttributeValue;
import io.sluice.queue.MessageRecord;
import io.sluice.queue.MessageRules;
import io.sluice.queue.PartitionRequest;
import io.sluice.queue.QueueMeta;
import io.sluice.queue.SendOutcome;
import io.sluice.queue.SqsException;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * SendMessage and SendMessageBatch. A standard message goes to the partition the router picks
 * (random; in a cluster, one the receiving node owns when it owns any); a FIFO
 * message to its group's partition, after its deduplication id is checked where the queue
 * keeps it: in the group's partition (per-group scope, or when the id hashes there), otherwise
 * in the id's own partition, reserved before the message is stored and confirmed after, without
 * holding the answer (the group's partition records the key as well, which makes a retry after a
 * failure between the two steps safe).
 */
final class SendActions {
    private static final Logger LOG = Logger.getLogger(SendActions.class.getName());
    private final Broker broker;

    SendActions(Broker broker) {
        this.broker = broker;
    }

    /** A batch entry once validated: ready for a partition, or refused with the error it reports. */
    private sealed interface Checked permits Outgoing, Refused {}

    /** A validated message ready for a partition, with its size for the batch limit. */
    private record Outgoing(MessageRecord record, long delayMillis, int size, String dedupKey) implements Checked {}

    /** A batch entry that failed validation; the rest of the batch goes on. */
    private record Refused(SqsException error) implements Checked {}

    Future<JsonObject> sendMessage(Params params, RequestInfo info) {
        broker.memory.checkRoom();
        QueueMeta meta = broker.queueOf(params, info);
        Outgoing out = validate(meta, params, info);
        return send(meta, out).map(outcome -> {
            broker.metrics.sent(meta.name(), out.size);
            return sentResult(out.record, outcome);
        });
    }

    Future<JsonObject> sendMessageBatch(Params params, RequestInfo info) {
        broker.memory.checkRoom();
        QueueMeta meta = broker.queueOf(params, info);
        List<Params> entries = params.objectList("Entries");
        List<String> ids = entries.stream().map(e -> e.optionalString("Id")).toList();
        BatchRules.checkIds(ids, "SendMessageBatchRequestEntry");
        List<Checked> validated = new ArrayList<>(entries.size());
        long total = 0;
        for (Params entry : entries) {
            try {
                Outgoing out = validate(meta, entry, info);
                total += out.size;
                validated.add(out);
            } catch (SqsException e) {
                validated.add(new Refused(e));
            }
        }
        BatchRules.checkTotalSize(total);
        return meta.fifo() ? sendInOrder(meta, ids, validated) : sendTogether(meta, ids, validated);
    }

    /**
     * A standard queue's valid entries go to one partition as one request: one trip and one commit
     * for the batch. Should the request fail (the partition could not be reached in the router's
     * time), every valid entry reports that failure.
     */
    private Future<JsonObject> sendTogether(QueueMeta meta, List<String> ids, List<Checked> validated) {
        List<PartitionRequest.Send> sends = new ArrayList<>(validated.size());
        for (Checked v : validated) {
            if (v instanceof Outgoing out) {
                sends.add(new PartitionRequest.Send(out.record, out.delayMillis));
            }
        }
        Future<List<SendOutcome>> stored = sends.isEmpty()
                ? Future.succeededFuture(List.of())
                : broker.router.executeSend(meta.name(), meta.partitions(), new PartitionRequest.SendBatch(sends));
        return stored.transform(done -> {
            List<JsonObject> results = new ArrayList<>(ids.size());
            int next = 0;
            for (int i = 0; i < ids.size(); i++) {
                Checked v = validated.get(i);
                if (v instanceof Refused refused) {
                    results.add(MessageCodec.failure(ids.get(i), refused.error()));
                } else if (v instanceof Outgoing out && done.succeeded()) {
                    results.add(sentEntry(meta, out, done.result().get(next++), ids.get(i)));
                } else {
                    results.add(failureOf(ids.get(i), done.cause()));
                }
            }
            return Future.succeededFuture(MessageCodec.batchOf(results));
        });
    }

    /** FIFO entries are stored one after the other so that a batch keeps its order within a group. */
    private Future<JsonObject> sendInOrder(QueueMeta meta, List<String> ids, List<Checked> validated) {
        List<Future<JsonObject>> results = new ArrayList<>(ids.size());
        Future<?> previous = Future.succeededFuture();
        for (int i = 0; i < ids.size(); i++) {
            String id = ids.get(i);
            Checked v = validated.get(i);
            Future<JsonObject> result;
            if (v instanceof Refused refused) {
                result = Future.succeededFuture(MessageCodec.failure(id, refused.error()));
            } else {
                Outgoing out = (Outgoing) v;
                result = previous.transform(ignored -> send(meta, out))
                        .map(outcome -> sentEntry(meta, out, outcome, id))
                        .recover(err -> Future.succeededFuture(failureOf(id, err)));
                previous = result;
            }
            results.add(result);
        }
        return MessageCodec.batchResult(results);
    }

    private JsonObject sentEntry(QueueMeta meta, Outgoing out, SendOutcome outcome, String id) {
        broker.metrics.sent(meta.name(), out.size);
        return sentResult(out.record, outcome).put("Id", id);
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
        String groupId = null;
        String dedupId = null;
        String dedupKey = null;
        int delay;
        if (meta.fifo()) {
            groupId = params.optionalString("MessageGroupId");
            FifoRules.checkId("MessageGroupId", groupId);
            // SQS refuses only a per-message delay that would delay: DelaySeconds=0 is accepted.
            Integer perMessage = params.optionalInt("DelaySeconds");
            if (perMessage != null && perMessage != 0) {
                throw SqsException.invalidParameter(
                        "Value " + perMessage
                                + " for parameter DelaySeconds is invalid. Reason: The request include parameter that is not valid for this queue type.");
            }
            dedupId = FifoRules.deduplicationId(
                    params.optionalString("MessageDeduplicationId"), body, meta.contentBasedDeduplication());
            dedupKey = FifoRules.dedupKey(dedupId, groupId, meta.deduplicatesPerGroup());
            delay = meta.delaySeconds();
        } else {
            if (params.has("MessageDeduplicationId")) {
                throw SqsException.invalidParameter(
                        "The request includes a parameter that is not valid for this queue type:"
                                + " MessageDeduplicationId.");
            }
            delay = MessageRules.delaySeconds(params.optionalInt("DelaySeconds"), meta.delaySeconds());
            // Fair queues: a standard queue takes a group id with the FIFO rules and hands it back.
            groupId = params.optionalString("MessageGroupId");
            if (groupId != null) {
                FifoRules.checkId("MessageGroupId", groupId);
            }
        }
        MessageRecord record = new MessageRecord(
                Ids.newId(), body, attributes, system, broker.clock.millis(), info.senderId(), groupId, dedupId, null);
        return new Outgoing(record, delay * 1000L, size, dedupKey);
    }

    private Future<SendOutcome> send(QueueMeta meta, Outgoing out) {
        if (!meta.fifo()) {
            return broker.router.executeSend(
                    meta.name(), meta.partitions(), new PartitionRequest.Send(out.record, out.delayMillis));
        }
        int group = FifoRules.partitionOf(out.record.messageGroupId(), meta.partitions());
        int dedupHome = meta.deduplicatesPerGroup() ? group : FifoRules.partitionOf(out.dedupKey, meta.partitions());
        if (dedupHome == group) {
            return broker.router.execute(
                    meta.name(), group, new PartitionRequest.Send(out.record, out.delayMillis, out.dedupKey));
        }
        return broker.router
                .execute(
                        meta.name(), dedupHome, new PartitionRequest.ReserveDedup(out.dedupKey, out.record.messageId()))
                .compose(seen -> {
                    if (seen != null && seen.confirmed()) {
                        return Future.succeededFuture(new SendOutcome(seen.messageId(), seen.sequenceNumber(), true));
                    }
                    // Unconfirmed: an earlier send of this id may have failed between the two steps;
                    // store under the reserved id. The group's partition keeps the key too, so when
                    // that earlier send did store the message it is not stored again, even if it was
                    // received and deleted since (a client's retry after a node loss did just that).
                    MessageRecord record = seen == null ? out.record : out.record.withMessageId(seen.messageId());
                    return broker.router
                            .execute(
                                    meta.name(),
                                    group,
                                    new PartitionRequest.Send(record, out.delayMillis, out.dedupKey))
                            .map(stored -> {
                                confirm(meta, dedupHome, out.dedupKey, stored);
                                return stored;
                            });
                });
    }

    /**
     * Confirms a reservation once its message is stored, without waiting for it: the client is
     * answered as soon as the group's partition stored the message. The request is queued before
     * the answer is written, so on one node a later send with the same id finds it confirmed (a
     * loop runs its tasks in order); until it lands, or if it fails, a retry sees the
     * reservation unconfirmed and goes to the group's partition, which knows the key.
     */
    private void confirm(QueueMeta meta, int dedupHome, String dedupKey, SendOutcome stored) {
        broker.router
                .execute(
                        meta.name(),
                        dedupHome,
                        new PartitionRequest.ConfirmDedup(dedupKey, stored.messageId(), stored.sequenceNumber()))
                .onFailure(err -> LOG.log(
                        Level.INFO,
                        "confirming deduplication id " + dedupKey + " of " + meta.name() + " failed; a retry with it"
                                + " goes to its group's partition: " + err.getMessage()));
    }

    private static JsonObject sentResult(MessageRecord r, SendOutcome outcome) {
        JsonObject result = new JsonObject().put("MD5OfMessageBody", r.md5OfBody());
        if (r.md5OfAttributes() != null) {
            result.put("MD5OfMessageAttributes", r.md5OfAttributes());
        }
        if (r.md5OfSystemAttributes() != null) {
            result.put("MD5OfMessageSystemAttributes", r.md5OfSystemAttributes());
        }
        result.put("MessageId", outcome.messageId());
        if (outcome.sequenceNumber() != null) {
            result.put("SequenceNumber", outcome.sequenceNumber());
        }
        return result;
    }

    static JsonObject failureOf(String id, Throwable err) {
        SqsException known = Broker.asSqsError(err);
        return MessageCodec.failure(
                id, known != null ? known : new SqsException(ErrorCode.INTERNAL_FAILURE, "Internal failure."));
    }
}
