package io.sluice.queue;

/**
 * One partition of one queue. Its text form, {@code queue#index}, is the key every node derives
 * the partition's storage from (Hazelcast hashes that string to place the partition's records),
 * so {@link #toString()} must not change; {@link #parse} reads it back. Queue names cannot hold
 * '#', so the last one ends the name.
 */
public record PartitionKey(String queue, int index) {
    private static final char SEPARATOR = '#';

    public PartitionKey {
        if (queue == null || queue.isEmpty()) {
            throw new IllegalArgumentException("a partition key needs a queue name");
        }
    }

    /** The key whose {@link #toString()} is {@code text}. */
    public static PartitionKey parse(String text) {
        int at = text.lastIndexOf(SEPARATOR);
        if (at <= 0 || at == text.length() - 1) {
            throw new IllegalArgumentException("not a partition key: " + text);
        }
        try {
            return new PartitionKey(text.substring(0, at), Integer.parseInt(text.substring(at + 1)));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("not a partition key: " + text, e);
        }
    }

    @Override
    public String toString() {
        return queue + SEPARATOR + index;
    }
}
