package io.sluice.queue;

import java.util.List;
import java.util.concurrent.CompletionStage;

/**
 * Where a partition's state changes go. A partition commits all changes of one loop turn in one
 * call, and the clients whose requests made them are answered only when the stage completes.
 * On a lone node the port is in memory; in a cluster it writes replicated storage.
 */
public interface CommitPort {
    CompletionStage<Void> commit(String queueName, int partition, List<PartitionChange> changes);
}
