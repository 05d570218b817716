package io.sluice.queue;

/**
 * One state change a partition made, as handed to the {@link CommitPort}: a replicated port
 * writes or removes the stored message, FIFO deduplication record or receive attempt it names.
 * Visibility expiry is not a change: the stored message already says when.
 */
public sealed interface PartitionChange {
    /**
     * The message is stored, or its state changed. The record is the live one: a port writes it
     * as it is when the commit is made ({@link MessageRecord#snapshot()}), which covers every
     * change to it in the same loop turn. {@code deliveryOnly}: the message was stored in an
     * earlier commit and only its {@link DeliveryState} changed (a receive, a visibility change), so
     * a port whose replicas hold it may write just that.
     */
    record MessageStored(String messageId, MessageRecord record, boolean deliveryOnly) implements PartitionChange {
        /** A message sent (or moved) to the partition. */
        static MessageStored of(MessageRecord r) {
            return new MessageStored(r.messageId, r, false);
        }

        /** A stored message received, or its visibility changed. */
        static MessageStored deliveryOf(MessageRecord r) {
            return new MessageStored(r.messageId, r, true);
        }
    }

    /** The message was deleted, purged or expired. */
    record MessageRemoved(String messageId) implements PartitionChange {}

    /** A deduplication record was made or confirmed. */
    record DedupStored(String key, DedupEntry entry) implements PartitionChange {}

    /** A deduplication record's window ended. */
    record DedupRemoved(String key) implements PartitionChange {}

    /** A FIFO receive attempt was remembered. */
    record AttemptStored(String attemptId, StoredAttempt attempt) implements PartitionChange {}

    /** A receive attempt's window ended. */
    record AttemptRemoved(String attemptId) implements PartitionChange {}
}
