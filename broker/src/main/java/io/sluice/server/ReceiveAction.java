package io.sluice.server;

import io.sluice.partition.PartitionStats;
import io.sluice.partition.VisibilityListener;
import io.sluice.protocol.Params;
import io.sluice.queue.AttemptRef;
import io.sluice.queue.AttributeNameFilter;
import io.sluice.queue.Delivery;
import io.sluice.queue.FifoRules;
import io.sluice.queue.InFlightQuota;
import io.sluice.queue.Md5;
import io.sluice.queue.MessageAttributeValue;
import io.sluice.queue.MessageRules;
import io.sluice.queue.PartitionRequest;
import io.sluice.queue.QueueMeta;
import io.sluice.queue.QueueRegistry;
import io.sluice.queue.ReceiptHandle;
import io.sluice.queue.ShortPollSampler;
import io.sluice.server.PartitionClaims.Claimed;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Supplier;

/**
 * ReceiveMessage. A short poll claims from a weighted sample of the queue's partitions and
 * answers at once. A long poll claims from all of them; when nothing is there it parks until a
 * partition announces a visible message or the wait ends. Partitions are claimed one after the
 * other with what is still wanted, so a receive never gets more than MaxNumberOfMessages.
 */
final class ReceiveAction {
    private static final List<String> SYSTEM_ATTRIBUTES = List.of(
            "SenderId",
            "SentTimestamp",
            "ApproximateReceiveCount",
            "ApproximateFirstReceiveTimestamp",
            "AWSTraceHeader",
            "MessageGroupId",
            "MessageDeduplicationId",
            "SequenceNumber",
            "DeadLetterQueueSourceArn");

    /** How often a parked receive claims again without being woken. */
    private static final long REPOLL_MILLIS = 1_000;

    private final Broker broker;
    private final Vertx vertx;
    private final PartitionClaims claims;

    ReceiveAction(Broker broker, Vertx vertx, PartitionClaims claims) {
        this.broker = broker;
        this.vertx = vertx;
        this.claims = claims;
    }

    Future<JsonObject> receiveMessage(Params params, RequestInfo info) {
        QueueMeta meta = broker.queueOf(params, info);
        int max = MessageRules.maxNumberOfMessages(params.optionalInt("MaxNumberOfMessages"));
        int waitSeconds =
                MessageRules.waitTimeSeconds(params.optionalInt("WaitTimeSeconds"), meta.receiveWaitTimeSeconds());
        int visibility = MessageRules.visibilityTimeout(
                params.optionalInt("VisibilityTimeout"), meta.visibilityTimeoutSeconds());
        Set<String> systemNames = new HashSet<>(params.stringList("AttributeNames"));
        systemNames.addAll(params.stringList("MessageSystemAttributeNames"));
        List<String> attributeNames = params.stringList("MessageAttributeNames");
        long visibilityMillis = visibility * 1000L;
        String attemptId = meta.fifo() ? params.optionalString("ReceiveRequestAttemptId") : null;

        Supplier<Future<List<Claimed>>> fresh = () -> (waitSeconds == 0
                        ? claims.claim(
                                meta, shortPollPartitions(meta), allowance(meta, max, true), visibilityMillis, true)
                        : new ParkedReceive(meta, max, visibilityMillis, waitSeconds * 1000L, info).start())
                .onSuccess(this::countFirstDeliveries);
        Future<List<Claimed>> claimed =
                attemptId == null ? fresh.get() : new ReceiveAttempts(attemptId, meta).run(fresh);
        return claimed.map(list -> result(meta, list, systemNames, attributeNames));
    }

    /**
     * How many messages this receive may put in flight. Standard queues answer a short poll over
     * the quota with OverLimit; FIFO queues and long polls just get nothing more.
     */
    private int allowance(QueueMeta meta, int max, boolean shortPoll) {
        long limit = meta.fifo() ? broker.config.fifoInFlightLimit() : broker.config.inFlightLimit();
        return InFlightQuota.allowance(claims.inFlight(meta), limit, max, shortPoll && !meta.fifo());
    }

    private List<Integer> shortPollPartitions(QueueMeta meta) {
        int[] visible = visibleCounts(meta);
        return nearFirst(
                meta,
                broker.config.shortPollSampling()
                        ? ShortPollSampler.sample(visible, ThreadLocalRandom.current())
                        : ShortPollSampler.all(meta.partitions(), ThreadLocalRandom.current()),
                () -> visible);
    }

    /** The last published visible counts of the queue's partitions. */
    private int[] visibleCounts(QueueMeta meta) {
        PartitionStats[] stats = broker.router.stats(meta.name());
        int[] visible = new int[meta.partitions()];
        for (int i = 0; i < visible.length && i < stats.length; i++) {
            visible[i] = stats[i].visible();
        }
        return visible;
    }

    /** The partitions to ask, those on this node first (see {@link ShortPollSampler#nearFirst}). */
    private List<Integer> nearFirst(QueueMeta meta, List<Integer> order, Supplier<int[]> visible) {
        return ShortPollSampler.nearFirst(order, p -> broker.router.runsHere(meta.name(), p), visible);
    }

    /**
     * How long this claim's first deliveries waited since their send. Counted on fresh claims only: a
     * FIFO receive retried with the same ReceiveRequestAttemptId gets the same deliveries again.
     */
    private void countFirstDeliveries(List<Claimed> claimed) {
        for (Claimed c : claimed) {
            Delivery d = c.delivery();
            if (d.receiveCount() == 1) {
                broker.metrics.firstReceive(d.firstReceiveTimestamp() - d.sentTimestamp());
            }
        }
    }

    private JsonObject result(
            QueueMeta meta, List<Claimed> claimed, Set<String> systemNames, List<String> attributeNames) {
        JsonObject result = new JsonObject();
        broker.metrics.received(meta.name(), claimed.size());
        if (claimed.isEmpty()) {
            return result;
        }
        boolean allSystem = systemNames.contains("All");
        JsonArray messages = new JsonArray();
        for (Claimed c : claimed) {
            Delivery d = c.delivery();
            JsonObject m = new JsonObject()
                    .put("MessageId", d.messageId())
                    .put(
                            "ReceiptHandle",
                            broker.receipts.encode(
                                    new ReceiptHandle(meta.name(), c.partition(), d.messageId(), d.receiptToken())))
                    .put("MD5OfBody", d.md5OfBody())
                    .put("Body", d.body());
            JsonObject attributes = new JsonObject();
            for (String name : SYSTEM_ATTRIBUTES) {
                if (allSystem || systemNames.contains(name)) {
                    String value = systemAttribute(d, name);
                    if (value != null) {
                        attributes.put(name, value);
                    }
                }
            }
            if (!attributes.isEmpty()) {
                m.put("Attributes", attributes);
            }
            Map<String, MessageAttributeValue> selected = AttributeNameFilter.select(d.attributes(), attributeNames);
            if (!selected.isEmpty()) {
                m.put("MD5OfMessageAttributes", Md5.ofAttributes(selected));
                m.put("MessageAttributes", MessageCodec.toJson(selected));
            }
            messages.add(m);
        }
        return result.put("Messages", messages);
    }

    private static String systemAttribute(Delivery d, String name) {
        return switch (name) {
            case "SenderId" -> d.senderId();
            case "SentTimestamp" -> Long.toString(d.sentTimestamp());
            case "ApproximateReceiveCount" -> Integer.toString(d.receiveCount());
            case "ApproximateFirstReceiveTimestamp" -> Long.toString(d.firstReceiveTimestamp());
            case "AWSTraceHeader" -> {
                MessageAttributeValue v = d.systemAttributes().get("AWSTraceHeader");
                yield v == null ? null : v.stringValue();
            }
            case "MessageGroupId" -> d.messageGroupId();
            case "MessageDeduplicationId" -> d.deduplicationId();
            case "SequenceNumber" -> d.sequenceNumber();
            case "DeadLetterQueueSourceArn" -> d.deadLetterSourceArn();
            default -> null;
        };
    }

    /**
     * FIFO ReceiveRequestAttemptId: the first attempt's result is remembered in the partition the
     * id hashes to, so a retry (through any node) gets the same messages and receipt handles
     * while their visibility timeout lasts; after that it is an ordinary receive.
     */
    private final class ReceiveAttempts {
        private final String attemptId;
        private final QueueMeta meta;
        private final int home;

        ReceiveAttempts(String attemptId, QueueMeta meta) {
            FifoRules.checkId("ReceiveRequestAttemptId", attemptId);
            this.attemptId = attemptId;
            this.meta = meta;
            this.home = FifoRules.partitionOf(attemptId, meta.partitions());
        }

        Future<List<Claimed>> run(Supplier<Future<List<Claimed>>> fresh) {
            return broker.router
                    .execute(meta.name(), home, new PartitionRequest.RecallAttempt(attemptId))
                    .compose(refs -> refs == null ? Future.succeededFuture((List<Claimed>) null) : redeliver(refs))
                    .compose(again -> again != null
                            ? Future.succeededFuture(again)
                            : fresh.get().compose(this::remember));
        }

        /** The remembered messages again, or null when any of them is no longer in flight under that receive. */
        private Future<List<Claimed>> redeliver(List<AttemptRef> refs) {
            List<Future<Delivery>> all = new ArrayList<>();
            for (AttemptRef r : refs) {
                all.add(broker.router.execute(
                        meta.name(), r.partition(), new PartitionRequest.Redeliver(r.messageId(), r.token())));
            }
            return Future.all(all).map(done -> {
                List<Claimed> out = new ArrayList<>();
                for (int i = 0; i < refs.size(); i++) {
                    Delivery d = all.get(i).result();
                    if (d == null) {
                        return null;
                    }
                    out.add(new Claimed(refs.get(i).partition(), d));
                }
                return out;
            });
        }

        private Future<List<Claimed>> remember(List<Claimed> claimed) {
            List<AttemptRef> refs = new ArrayList<>();
            for (Claimed c : claimed) {
                refs.add(new AttemptRef(
                        c.partition(), c.delivery().messageId(), c.delivery().receiptToken()));
            }
            return broker.router
                    .execute(meta.name(), home, new PartitionRequest.RememberAttempt(attemptId, refs))
                    .map(v -> claimed);
        }
    }

    /**
     * A long poll waiting on one queue, living on the event loop of its HTTP connection. It is
     * parked before its first claim, so a message that arrives during that claim still wakes it;
     * a wake during a claim is remembered and claims again afterwards. Its first claim (and the
     * periodic re-poll) skips the partitions running here that show nothing visible; a wake from a
     * partition of this node makes it ask that partition only, so one message costs each parked
     * poll one request, not one per partition.
     */
    private final class ParkedReceive implements LongPolls.Waiter {
        private final QueueMeta meta;
        private final int max;
        private final long visibilityMillis;
        private final long waitMillis;
        private final RequestInfo info;
        private final Context context;
        private final Promise<List<Claimed>> answer = Promise.promise();
        /** Partitions announced while a claim was under way: asked next. */
        private final BitSet wokenBy = new BitSet();

        private boolean wokenByAny;
        private boolean claiming;
        private boolean expired;
        private boolean done;
        private long timer = -1;
        private long repoll = -1;

        ParkedReceive(QueueMeta meta, int max, long visibilityMillis, long waitMillis, RequestInfo info) {
            this.meta = meta;
            this.max = max;
            this.visibilityMillis = visibilityMillis;
            this.waitMillis = waitMillis;
            this.info = info;
            this.context = vertx.getOrCreateContext();
        }

        Future<List<Claimed>> start() {
            broker.longPolls.park(meta.name(), this);
            timer = vertx.setTimer(waitMillis, id -> {
                timer = -1;
                expired = true;
                if (!claiming) {
                    finish(List.of());
                }
            });
            info.clientGone().onComplete(v -> {
                // Nobody to answer: stop waiting. A claim under way still completes; its
                // messages stay in flight until their visibility timeout, as in SQS.
                if (!claiming) {
                    finish(List.of());
                } else {
                    expired = true;
                }
            });
            // A slow safety net: a wake lost while a partition changed owner only delays the answer.
            repoll = vertx.setPeriodic(REPOLL_MILLIS, id -> wake(VisibilityListener.ANY_PARTITION));
            attempt(nearFirst(
                    meta,
                    unlessKnownEmpty(ShortPollSampler.all(meta.partitions(), ThreadLocalRandom.current())),
                    () -> visibleCounts(meta)));
            return answer.future();
        }

        @Override
        public void wake(int partition) {
            context.runOnContext(v -> {
                if (done) {
                    return;
                }
                if (partition < 0) { // ANY_PARTITION
                    wokenByAny = true;
                } else {
                    wokenBy.set(partition);
                }
                if (!claiming) {
                    attempt(takeWoken());
                }
            });
        }

        /** The partitions to ask after wakes, in random order; clears them. */
        private List<Integer> takeWoken() {
            List<Integer> partitions;
            if (wokenByAny) {
                partitions = unlessKnownEmpty(ShortPollSampler.all(meta.partitions(), ThreadLocalRandom.current()));
            } else {
                partitions = new ArrayList<>(wokenBy.cardinality());
                wokenBy.stream().filter(p -> p < meta.partitions()).forEach(partitions::add);
                Collections.shuffle(partitions, ThreadLocalRandom.current());
            }
            wokenByAny = false;
            wokenBy.clear();
            return partitions;
        }

        private List<Integer> unlessKnownEmpty(List<Integer> partitions) {
            List<Integer> out = new ArrayList<>(partitions.size());
            for (int p : partitions) {
                if (!broker.router.knownEmpty(meta.name(), p)) {
                    out.add(p);
                }
            }
            return out;
        }

        private void attempt(List<Integer> partitions) {
            if (broker.registry.find(meta.name()) == null) {
                answer.tryFail(QueueRegistry.doesNotExist());
                finish(List.of());
                return;
            }
            if (partitions.isEmpty()) {
                return;
            }
            claiming = true;
            claims.claim(meta, partitions, allowance(meta, max, false), visibilityMillis, true)
                    .onComplete(ar -> {
                        claiming = false;
                        if (ar.failed()) {
                            answer.tryFail(ar.cause());
                            finish(List.of());
                        } else if (!ar.result().isEmpty() || expired) {
                            finish(ar.result());
                        } else if (wokenByAny || !wokenBy.isEmpty()) {
                            attempt(takeWoken());
                        }
                    });
        }

        private void finish(List<Claimed> messages) {
            if (done) {
                return;
            }
            done = true;
            broker.longPolls.unpark(meta.name(), this);
            if (timer >= 0) {
                vertx.cancelTimer(timer);
            }
            vertx.cancelTimer(repoll);
            answer.tryComplete(messages);
        }
    }
}
