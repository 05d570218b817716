package io.sluice.partition;

/** The partition is not (or no longer) run here: the caller finds its owner again and retries. */
public final class PartitionMoved extends RuntimeException {
    public PartitionMoved(String queueName, int partition) {
        super(queueName + "#" + partition + " is not owned here", null, false, false);
    }
}
