package io.sluice.partition;

/**
 * What the partitions of this node tell an observer (the node's metrics): commits with their
 * size and duration, rebuilds from storage, hand-overs to another owner. Called on partition
 * loops, so implementations must be cheap and must not block.
 */
public interface PartitionEvents {
    PartitionEvents NONE = new PartitionEvents() {};

    /** A commit of {@code changes} changes completed (or failed) after {@code nanos}. */
    default void committed(int changes, long nanos) {}

    /** A partition was rebuilt from storage and serves here now. */
    default void rebuilt() {}

    /** A partition this node ran moved to another owner and was dropped here. */
    default void handedOver() {}
}
