package io.sluice.partition;

import io.sluice.queue.PartitionRequest;
import io.vertx.core.Future;
import java.util.concurrent.ThreadLocalRandom;

/**
 * How the server reaches a queue partition without knowing where it runs: on this node's loop
 * directly, or (in a cluster) on its owner node.
 */
public interface PartitionRouter {
    /** Runs the request on the partition's owner; completes on the caller's context. */
    <R> Future<R> execute(String queueName, int partition, PartitionRequest<R> request);

    /**
     * Stores a standard queue's send (one message or a batch) in a partition of the router's
     * choice: any will do, so a random one here, spread without shared state.
     */
    default <R> Future<R> executeSend(String queueName, int partitions, PartitionRequest<R> request) {
        return execute(queueName, ThreadLocalRandom.current().nextInt(partitions), request);
    }

    /**
     * Whether the partition runs on this node and has no visible message now. Exact for a local
     * partition (its counts are published on every change, before it announces newly visible
     * messages), so a long poll parked before asking can skip it: a message that arrives later
     * wakes the poll. False when not known (a remote partition, or one not started here).
     */
    default boolean knownEmpty(String queueName, int partition) {
        return false;
    }

    /** Whether the partition runs on this node, so that a request to it needs no hop; always, on a node alone. */
    default boolean runsHere(String queueName, int partition) {
        return true;
    }

    /** Last published counts of each partition of the queue; empty when the queue is unknown. */
    PartitionStats[] stats(String queueName);
}
