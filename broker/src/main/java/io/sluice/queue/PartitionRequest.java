package io.sluice.queue;

import java.util.List;

/**
 * What can be asked of one partition, as data: the owner of a partition runs it against the
 * partition's state on the partition's loop, wherever the request came from. Keeping requests
 * as plain values is what lets the cluster carry them to another node.
 */
public sealed interface PartitionRequest<R> {

    R applyTo(Partition partition);

    /** Store a message, visible after {@code delayMillis}. */
    record Send(MessageRecord message, long delayMillis) implements PartitionRequest<Void> {
        @Override
        public Void applyTo(Partition p) {
            p.send(message, delayMillis);
            return null;
        }
    }

    /** Receive up to {@code max} messages, in flight for {@code visibilityMillis}. */
    record Receive(int max, long visibilityMillis) implements PartitionRequest<List<Delivery>> {
        @Override
        public List<Delivery> applyTo(Partition p) {
            return max <= 0 ? List.of() : p.receive(max, visibilityMillis);
        }
    }

    /** Delete by receipt token; true when a message was deleted. */
    record Delete(String messageId, long token) implements PartitionRequest<Boolean> {
        @Override
        public Boolean applyTo(Partition p) {
            return p.delete(messageId, token);
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
}
