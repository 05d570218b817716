package io.sluice.queue;

import java.util.ArrayList;
import java.util.List;

/**
 * What can be asked of one partition, as data: the owner of a partition runs it against the
 * partition's state on the partition's loop, wherever the request came from. Keeping requests
 * as plain values is what lets the cluster carry them to another node.
 */
public sealed interface PartitionRequest<R> {

    R applyTo(Partition partition);

    /** Store a message, visible after {@code delayMillis}; {@code dedupKey} is checked here when not null. */
    record Send(MessageRecord message, long delayMillis, String dedupKey) implements PartitionRequest<SendOutcome> {
        public Send(MessageRecord message, long delayMillis) {
            this(message, delayMillis, null);
        }

        @Override
        public SendOutcome applyTo(Partition p) {
            return p.send(message, delayMillis, dedupKey);
        }
    }

    /**
     * Several requests of one kind to one partition, answered with their answers in order. A node of a
     * build older than these requests is sent the {@link #parts()} one by one instead.
     */
    sealed interface Batched<E> extends PartitionRequest<List<E>> permits SendBatch, DeleteBatch {
        List<? extends PartitionRequest<E>> parts();

        /** Each part in turn, on the partition's loop as one task: their changes go out in one commit. */
        @Override
        default List<E> applyTo(Partition p) {
            List<E> answers = new ArrayList<>(parts().size());
            for (PartitionRequest<E> part : parts()) {
                answers.add(part.applyTo(p));
            }
            return answers;
        }
    }

    /**
     * Store the messages of one standard queue's batch, in order: one trip to the partition and one
     * commit for all of them instead of one per message. Each is a {@link Send} of its own, so a
     * retried batch finds the messages already stored by their ids.
     */
    record SendBatch(List<Send> parts) implements Batched<SendOutcome> {
        public SendBatch {
            parts = List.copyOf(parts);
        }
    }

    /** Receive up to {@code max} messages; those over {@code maxReceiveCount} (0: none) come back to be moved. */
    record Receive(int max, long visibilityMillis, int maxReceiveCount, long moveMillis)
            implements PartitionRequest<ReceiveOutcome> {
        public Receive(int max, long visibilityMillis) {
            this(max, visibilityMillis, 0, 0);
        }

        @Override
        public ReceiveOutcome applyTo(Partition p) {
            return p.receive(max, visibilityMillis, maxReceiveCount, moveMillis);
        }
    }

    /** Delete by receipt token; true when a message was deleted. */
    record Delete(String messageId, long token) implements PartitionRequest<Boolean> {
        @Override
        public Boolean applyTo(Partition p) {
            return p.delete(messageId, token);
        }
    }

    /**
     * Delete several messages of a standard queue's partition by their receipt tokens: one trip for the
     * entries of a DeleteMessageBatch that are there. A standard delete never fails once its handle is
     * read (it deletes, or finds nothing to delete), so each gets its answer.
     */
    record DeleteBatch(List<Delete> parts) implements Batched<Boolean> {
        public DeleteBatch {
            parts = List.copyOf(parts);
        }
    }

    /** Set a new visibility timeout counted from now. */
    record ChangeVisibility(String messageId, long token, long timeoutMillis, String receiptHandle)
            implements PartitionRequest<Void> {
        @Override
        public Void applyTo(Partition p) {
            p.changeVisibility(messageId, token, timeoutMillis, receiptHandle);
            return null;
        }
    }

    /** Remove every message. */
    record Purge() implements PartitionRequest<Void> {
        @Override
        public Void applyTo(Partition p) {
            p.purge();
            return null;
        }
    }

    /** Reserve a queue-wide deduplication key; answers the entry already there, or null. */
    record ReserveDedup(String key, String messageId) implements PartitionRequest<DedupEntry> {
        @Override
        public DedupEntry applyTo(Partition p) {
            return p.reserveDedup(key, messageId);
        }
    }

    /** Confirm a reservation once its message is stored. */
    record ConfirmDedup(String key, String messageId, String sequenceNumber) implements PartitionRequest<Void> {
        @Override
        public Void applyTo(Partition p) {
            p.confirmDedup(key, messageId, sequenceNumber);
            return null;
        }
    }

    /** Remember a FIFO receive attempt's result. */
    record RememberAttempt(String attemptId, List<AttemptRef> refs) implements PartitionRequest<Void> {
        @Override
        public Void applyTo(Partition p) {
            p.rememberAttempt(attemptId, refs);
            return null;
        }
    }

    /** Recall a FIFO receive attempt's result, or null. */
    record RecallAttempt(String attemptId) implements PartitionRequest<List<AttemptRef>> {
        @Override
        public List<AttemptRef> applyTo(Partition p) {
            return p.recallAttempt(attemptId);
        }
    }

    /** The message as delivered with this token, or null once that receive is over. */
    record Redeliver(String messageId, long token) implements PartitionRequest<Delivery> {
        @Override
        public Delivery applyTo(Partition p) {
            return p.redeliver(messageId, token);
        }
    }
}
