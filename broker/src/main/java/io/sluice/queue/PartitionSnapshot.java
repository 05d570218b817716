package io.sluice.queue;

import java.util.List;
import java.util.Map;

/**
 * What storage holds of one partition: what a new owner rebuilds it from.
 *
 * @param incarnation the incarnation of the queue these records belong to (its creation time,
 *     {@link QueueMeta#createdMillis()}), or {@link #UNKNOWN_INCARNATION} where storage does not
 *     know it (nothing stored, or records written while an older member could not read it)
 */
public record PartitionSnapshot(
        List<StoredMessage> messages,
        Map<String, DedupEntry> dedup,
        Map<String, StoredAttempt> attempts,
        long incarnation) {
    public static final long UNKNOWN_INCARNATION = 0;
    public static final PartitionSnapshot EMPTY =
            new PartitionSnapshot(List.of(), Map.of(), Map.of(), UNKNOWN_INCARNATION);

    /** Records whose incarnation is not known. */
    public PartitionSnapshot(
            List<StoredMessage> messages, Map<String, DedupEntry> dedup, Map<String, StoredAttempt> attempts) {
        this(messages, dedup, attempts, UNKNOWN_INCARNATION);
    }

    /**
     * Whether these records belong to another incarnation of the queue than {@code incarnation}:
     * a queue deleted earlier under the same name, or (seen by a partition of that deleted queue) one
     * created since. Records whose incarnation is not known belong to any.
     */
    public boolean ofAnotherIncarnationThan(long incarnation) {
        return differ(this.incarnation, incarnation);
    }

    /**
     * Whether records of incarnation {@code a} are not those of incarnation {@code b}: both are
     * known and differ. Only equality counts, not order: incarnations are creation times read from
     * different nodes' clocks.
     */
    public static boolean differ(long a, long b) {
        return a != UNKNOWN_INCARNATION && b != UNKNOWN_INCARNATION && a != b;
    }
}
