package io.sluice.partition;

/** A partition's message counts as last published by its loop; approximate by nature, like SQS's. */
public record PartitionStats(int visible, int inFlight, int delayed, long oldestSentMillis) {
    public static final PartitionStats EMPTY = new PartitionStats(0, 0, 0, 0);
}
