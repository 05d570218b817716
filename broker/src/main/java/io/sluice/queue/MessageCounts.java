package io.sluice.queue;

/**
 * A queue's approximate message counts, as GetQueueAttributes reports them: the sums of its
 * partitions' last published counts.
 */
public record MessageCounts(long visible, long inFlight, long delayed) {
    public static final MessageCounts NONE = new MessageCounts(0, 0, 0);
}
