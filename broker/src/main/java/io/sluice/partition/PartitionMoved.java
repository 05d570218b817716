package io.sluice.partition;

import io.sluice.queue.PartitionKey;

/** The partition is not (or no longer) run here: the caller finds its owner again and retries. */
public final class PartitionMoved extends RuntimeException {
    public PartitionMoved(String queueName, int partition) {
        super(new PartitionKey(queueName, partition) + " is not owned here", null, false, false);
    }
}
