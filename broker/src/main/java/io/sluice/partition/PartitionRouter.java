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
     * The partition a standard queue's message goes to: any will do, so a random one, spread
     * without shared state.
     */
    default int partitionForSend(String queueName, int partitions) {
        return ThreadLocalRandom.current().nextInt(partitions);
    }

    /** Last published counts of each partition of the queue; empty when the queue is unknown. */
    PartitionStats[] stats(String queueName);
}
