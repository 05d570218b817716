package io.sluice.server;

import io.sluice.partition.PartitionStats;
import io.sluice.protocol.Params;
import io.sluice.queue.AttributeNameFilter;
import io.sluice.queue.Delivery;
import io.sluice.queue.InFlightQuota;
import io.sluice.queue.MessageAttributeValue;
import io.sluice.queue.MessageRules;
import io.sluice.queue.Md5;
import io.sluice.queue.PartitionRequest;
import io.sluice.queue.QueueMeta;
import io.sluice.queue.ReceiptHandle;
import io.sluice.queue.ShortPollSampler;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;

/**
 * ReceiveMessage. A short poll claims from a weighted sample of the queue's partitions and
 * answers at once. A long poll claims from all of them; when nothing is there it parks until a
 * partition announces a visible message or the wait ends. Partitions are claimed one after the
 * other with what is still wanted, so a receive never gets more than MaxNumberOfMessages.
 */
final class ReceiveAction {
    private static final Set<String> SYSTEM_ATTRIBUTES = Set.of("SenderId", "SentTimestamp",
            "ApproximateReceiveCount", "ApproximateFirstReceiveTimestamp", "AWSTraceHeader");

    private final Broker broker;
    private final Vertx vertx;

    ReceiveAction(Broker broker, Vertx vertx) {
        this.broker = broker;
        this.vertx = vertx;
    }

    /** One claimed message and the partition it came from (the receipt handle names it). */
    private record Claimed(int partition, Delivery delivery) { }

    Future<JsonObject> receiveMessage(Params params, RequestInfo info) {
        QueueMeta meta = broker.queueOf(params);
        int max = MessageRules.maxNumberOfMessages(params.optionalInt("MaxNumberOfMessages"));
        int waitSeconds = MessageRules.waitTimeSeconds(params.optionalInt("WaitTimeSeconds"), meta.receiveWaitTimeSeconds());
        int visibility = MessageRules.visibilityTimeout(params.optionalInt("VisibilityTimeout"), meta.visibilityTimeoutSeconds());
        Set<String> systemNames = new HashSet<>(params.stringList("AttributeNames"));
        systemNames.addAll(params.stringList("MessageSystemAttributeNames"));
        List<String> attributeNames = params.stringList("MessageAttributeNames");
        long visibilityMillis = visibility * 1000L;

        Future<List<Claimed>> claimed;
        if (waitSeconds == 0) {
            int allowance = InFlightQuota.allowance(inFlight(meta), broker.config.inFlightLimit(), max, true);
            claimed = claim(meta, shortPollPartitions(meta), allowance, visibilityMillis);
        } else {
            claimed = new ParkedReceive(meta, max, visibilityMillis, waitSeconds * 1000L, info).start();
        }
        return claimed.map(list -> result(meta, list, systemNames, attributeNames));
    }

    private List<Integer> shortPollPartitions(QueueMeta meta) {
        if (!broker.config.shortPollSampling()) {
            return ShortPollSampler.all(meta.partitions(), ThreadLocalRandom.current());
        }
        PartitionStats[] stats = broker.router.stats(meta.name());
        int[] visible = new int[meta.partitions()];
        for (int i = 0; i < visible.length && i < stats.length; i++) {
            visible[i] = stats[i].visible();
        }
        return ShortPollSampler.sample(visible, ThreadLocalRandom.current());
    }

    private long inFlight(QueueMeta meta) {
        long sum = 0;
        for (PartitionStats s : broker.router.stats(meta.name())) {
            sum += s.inFlight();
        }
        return sum;
    }

    /** Claims from the partitions in order, asking each only for what is still wanted. */
    private Future<List<Claimed>> claim(QueueMeta meta, List<Integer> partitions, int wanted, long visibilityMillis) {
        List<Claimed> out = new ArrayList<>();
        if (wanted <= 0) {
            return Future.succeededFuture(out);
        }
        return claimFrom(meta, partitions, 0, wanted, visibilityMillis, out);
    }

    private Future<List<Claimed>> claimFrom(QueueMeta meta, List<Integer> partitions, int i, int wanted,
                                            long visibilityMillis, List<Claimed> out) {
        if (i >= partitions.size() || out.size() >= wanted) {
            return Future.succeededFuture(out);
        }
        int p = partitions.get(i);
        return broker.router.execute(meta.name(), p, new PartitionRequest.Receive(wanted - out.size(), visibilityMillis))
                .compose(deliveries -> {
                    deliveries.forEach(d -> out.add(new Claimed(p, d)));
                    return claimFrom(meta, partitions, i + 1, wanted, visibilityMillis, out);
                });
    }

    private JsonObject result(QueueMeta meta, List<Claimed> claimed, Set<String> systemNames, List<String> attributeNames) {
        JsonObject result = new JsonObject();
        if (claimed.isEmpty()) {
            return result;
        }
        boolean allSystem = systemNames.contains("All");
        JsonArray messages = new JsonArray();
        for (Claimed c : claimed) {
            Delivery d = c.delivery;
            JsonObject m = new JsonObject()
                    .put("MessageId", d.messageId())
                    .put("ReceiptHandle", broker.receipts.encode(
                            new ReceiptHandle(meta.name(), c.partition, d.messageId(), d.receiptToken())))
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
            default -> null;
        };
    }

    /**
     * A long poll waiting on one queue, living on the event loop of its HTTP connection. It is
     * parked before its first claim, so a message that arrives during that claim still wakes it;
     * a wake during a claim is remembered and claims again afterwards.
     */
    private final class ParkedReceive implements LongPolls.Waiter {
        private final QueueMeta meta;
        private final int max;
        private final long visibilityMillis;
        private final long waitMillis;
        private final RequestInfo info;
        private final io.vertx.core.Context context;
        private final Promise<List<Claimed>> answer = Promise.promise();
        private boolean claiming;
        private boolean wokenDuringClaim;
        private boolean expired;
        private boolean done;
        private long timer = -1;

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
            attempt();
            return answer.future();
        }

        @Override
        public void wake() {
            context.runOnContext(v -> {
                if (done) {
                    return;
                }
                if (claiming) {
                    wokenDuringClaim = true;
                } else {
                    attempt();
                }
            });
        }

        private void attempt() {
            claiming = true;
            wokenDuringClaim = false;
            if (broker.registry.find(meta.name()) == null) {
                answer.tryFail(io.sluice.queue.QueueRegistry.doesNotExist());
                finish(List.of());
                return;
            }
            int allowance = InFlightQuota.allowance(inFlight(meta), broker.config.inFlightLimit(), max, false);
            claim(meta, ShortPollSampler.all(meta.partitions(), ThreadLocalRandom.current()), allowance, visibilityMillis)
                    .onComplete(ar -> {
                        claiming = false;
                        if (ar.failed()) {
                            answer.tryFail(ar.cause());
                            finish(List.of());
                        } else if (!ar.result().isEmpty() || expired) {
                            finish(ar.result());
                        } else if (wokenDuringClaim) {
                            attempt();
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
            answer.tryComplete(messages);
        }
    }
}
