package io.sluice.cluster;

import io.sluice.partition.VisibilityListener;
import io.sluice.queue.PartitionKey;
import io.vertx.core.MultiMap;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Carries "partition P of queue Q has visible messages" to the nodes where long polls on Q are
 * parked. A node with parked polls on Q listens on Q's wake address; an owner publishes to it,
 * at most once per loop turn per partition however many messages arrived, with the partition's
 * index in a header, so the waiters there ask that partition only (one forwarded request each,
 * not one per partition). A wake without the header (from a node that does not send it) makes
 * them look at every partition. Waiters also re-poll slowly, so a wake lost while ownership
 * moves only delays a receive.
 */
public final class WakeRelay implements VisibilityListener {
    static final String ADDRESS_PREFIX = "sluice.wake.";
    private static final String ORIGIN = "origin";
    private static final String PARTITION = "partition";

    private final Vertx vertx;
    private final VisibilityListener local;
    private final String nodeId;
    private final Set<PartitionKey> pending = ConcurrentHashMap.newKeySet();
    private final Set<String> watching = ConcurrentHashMap.newKeySet();

    public WakeRelay(Vertx vertx, VisibilityListener local, String nodeId) {
        this.vertx = vertx;
        this.local = local;
        this.nodeId = nodeId;
    }

    @Override
    public void onVisible(String queueName, int partition) {
        local.onVisible(queueName, partition);
        PartitionKey key = new PartitionKey(queueName, partition);
        if (pending.add(key)) {
            // Runs after the work already queued on this loop: one publish covers that whole turn.
            vertx.runOnContext(v -> {
                pending.remove(key);
                DeliveryOptions options = new DeliveryOptions()
                        .addHeader(ORIGIN, nodeId)
                        .addHeader(PARTITION, Integer.toString(partition));
                vertx.eventBus().publish(ADDRESS_PREFIX + queueName, queueName, options);
            });
        }
    }

    /** Starts listening for wakes of a queue on this node (once; kept while the queue lives). */
    public void watch(String queueName) {
        if (!watching.add(queueName)) {
            return;
        }
        vertx.eventBus()
                .<String>consumer(ADDRESS_PREFIX + queueName, msg -> {
                    if (!nodeId.equals(msg.headers().get(ORIGIN))) {
                        local.onVisible(queueName, partitionOf(msg.headers()));
                    }
                })
                .completion()
                .onSuccess(v -> local.onVisible(queueName, ANY_PARTITION));
    }

    /** The header's partition; {@link #ANY_PARTITION} when it is missing or not an index. */
    static int partitionOf(MultiMap headers) {
        String text = headers.get(PARTITION);
        if (text == null) {
            return ANY_PARTITION;
        }
        try {
            int partition = Integer.parseInt(text);
            return partition >= 0 ? partition : ANY_PARTITION;
        } catch (NumberFormatException e) {
            return ANY_PARTITION;
        }
    }
}
