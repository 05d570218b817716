package io.sluice.queue;

/**
 * One state change a partition made, as handed to the {@link CommitPort}. A replicated port
 * writes {@link Kind#UPSERT} records, removes {@link Kind#REMOVE} ones and empties the partition
 * on {@link Kind#CLEAR}. Visibility expiry is not a change: the record already says when.
 */
public record PartitionChange(Kind kind, String messageId, MessageRecord record) {
    public enum Kind { UPSERT, REMOVE, CLEAR }

    static PartitionChange upsert(MessageRecord r) { return new PartitionChange(Kind.UPSERT, r.messageId, r); }
    static PartitionChange remove(MessageRecord r) { return new PartitionChange(Kind.REMOVE, r.messageId, null); }
    static PartitionChange clear() { return new PartitionChange(Kind.CLEAR, null, null); }
}
