package io.sluice.queue;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/** For tests of one process: the partition's memory is the only copy, so a commit is done at once. */
public final class InMemoryCommitPort implements CommitPort {
    private static final CompletionStage<Void> DONE = CompletableFuture.completedFuture(null);

    @Override
    public CompletionStage<Void> commit(String queueName, int partition, List<PartitionChange> changes) {
        return DONE;
    }

    @Override
    public CompletionStage<PartitionSnapshot> load(String queueName, int partition) {
        return CompletableFuture.completedFuture(PartitionSnapshot.EMPTY);
    }
}
