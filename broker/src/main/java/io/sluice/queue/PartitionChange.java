package io.sluice.queue;

/**
 * One state change a partition made, as handed to the {@link CommitPort}. A replicated port
 * writes {@link Kind#UPSERT} records, removes {@link Kind#REMOVE} ones, and keeps FIFO deduplication and receive-attempt records
 * ({@link Kind#DEDUP}, {@link Kind#ATTEMPT}, value null to remove). Visibility expiry is not a
 * change: the record already says when.
 */
public record PartitionChange(Kind kind, String key, MessageRecord record, Object value) {
    public enum Kind { UPSERT, REMOVE, DEDUP, ATTEMPT }

    static PartitionChange upsert(MessageRecord r) { return new PartitionChange(Kind.UPSERT, r.messageId, r, null); }
    static PartitionChange remove(MessageRecord r) { return new PartitionChange(Kind.REMOVE, r.messageId, null, null); }
    static PartitionChange dedup(String key, DedupEntry e) { return new PartitionChange(Kind.DEDUP, key, null, e); }
    static PartitionChange attempt(String key, Object refs) { return new PartitionChange(Kind.ATTEMPT, key, null, refs); }
}
