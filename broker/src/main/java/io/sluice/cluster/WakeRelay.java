package io.sluice.cluster;

import io.sluice.partition.VisibilityListener;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Carries "a partition of queue Q has visible messages" to the nodes where long polls on Q are
 * parked. A node with parked polls on Q listens on Q's wake address; an owner publishes to it,
 * at most once per loop turn per queue however many messages arrived (the wake makes the
 * waiters claim, and the claim finds all of them). Waiters also re-poll slowly, so a wake lost
 * while ownership moves only delays a receive.
 */
public final class WakeRelay implements VisibilityListener {
    static final String ADDRESS_PREFIX = "sluice.wake.";
    private static final String ORIGIN = "origin";

    private final Vertx vertx;
    private final VisibilityListener local;
    private final String nodeId;
    private final DeliveryOptions options;
    private final Set<String> pending = ConcurrentHashMap.newKeySet();
    private final Set<String> watching = ConcurrentHashMap.newKeySet();

    public WakeRelay(Vertx vertx, VisibilityListener local, String nodeId) {
        this.vertx = vertx;
        this.local = local;
        this.nodeId = nodeId;
        this.options = new DeliveryOptions().addHeader(ORIGIN, nodeId);
    }

    @Override
    public void onVisible(String queueName, int partition) {
        local.onVisible(queueName, partition);
        if (pending.add(queueName)) {
            // Runs after the work already queued on this loop: one publish covers that whole turn.
            vertx.runOnContext(v -> {
                pending.remove(queueName);
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
                        local.onVisible(queueName, -1);
                    }
                })
                .completion()
                .onSuccess(v -> local.onVisible(queueName, -1));
    }
}
