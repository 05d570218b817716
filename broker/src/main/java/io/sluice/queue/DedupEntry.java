package io.sluice.queue;

/**
 * A FIFO deduplication record: the message a deduplication id was first sent as. A record whose
 * sequence number is still null is a reservation whose message may not be stored yet.
 */
public record DedupEntry(String messageId, String sequenceNumber, long expiresAt) {
    /** SQS's deduplication interval. */
    public static final long WINDOW_MILLIS = 5 * 60_000L;

    public boolean confirmed() {
        return sequenceNumber != null;
    }
}
