package io.sluice.queue;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * Where a partition's state is kept beyond its loop's memory. A partition commits all changes
 * of one loop turn in one call, and the clients whose requests made them are answered only
 * when the stage completes. A node that becomes a partition's owner loads it from here.
 */
public interface CommitPort {
    /**
     * @param incarnation the incarnation of the queue the changes belong to ({@link
     *     QueueMeta#createdMillis()}); storage keeps no records of another incarnation beside them
     */
    CompletionStage<Void> commit(String queueName, int partition, long incarnation, List<PartitionChange> changes);

    /** Everything stored for the partition, for its new owner to rebuild from. */
    CompletionStage<PartitionSnapshot> load(String queueName, int partition);

    /** Whether commits go anywhere; when not, a partition answers as soon as a change is applied. */
    default boolean replicates() {
        return true;
    }

    /**
     * The port of a node that has no replica to write: a standalone node keeps its partitions in
     * their loops' memory only, and nobody else ever owns them.
     */
    static CommitPort inMemory() {
        return InMemory.INSTANCE;
    }

    /** See {@link #inMemory()}. */
    enum InMemory implements CommitPort {
        INSTANCE;

        private static final CompletionStage<Void> DONE = CompletableFuture.completedFuture(null);
        private static final CompletionStage<PartitionSnapshot> NOTHING =
                CompletableFuture.completedFuture(PartitionSnapshot.EMPTY);

        @Override
        public CompletionStage<Void> commit(
                String queueName, int partition, long incarnation, List<PartitionChange> changes) {
            return DONE;
        }

        @Override
        public CompletionStage<PartitionSnapshot> load(String queueName, int partition) {
            return NOTHING;
        }

        @Override
        public boolean replicates() {
            return false;
        }
    }
}
