package io.sluice.queue;

import java.util.List;
import java.util.Map;

/** What storage holds of one partition: what a new owner rebuilds it from. */
public record PartitionSnapshot(
        List<StoredMessage> messages, Map<String, DedupEntry> dedup, Map<String, StoredAttempt> attempts) {
    public static final PartitionSnapshot EMPTY = new PartitionSnapshot(List.of(), Map.of(), Map.of());
}
