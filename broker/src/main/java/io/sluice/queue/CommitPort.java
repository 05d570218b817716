package io.sluice.queue;

import java.util.List;
import java.util.concurrent.CompletionStage;

/**
 * Where a partition's state is kept beyond its loop's memory. A partition commits all changes
 * of one loop turn in one call, and the clients whose requests made them are answered only
 * when the stage completes. A node that becomes a partition's owner loads it from here.
 */
public interface CommitPort {
    CompletionStage<Void> commit(String queueName, int partition, List<PartitionChange> changes);

    /** Everything stored for the partition, for its new owner to rebuild from. */
    CompletionStage<PartitionSnapshot> load(String queueName, int partition);
}
