package io.sluice.queue;

/**
 * The part of a stored message that a receive or a visibility change rewrites: its state, when
 * it becomes visible, its receive count and times, and its current receipt token. A replica that
 * holds the message's body and attributes needs only this to follow a receive.
 */
public record DeliveryState(
        MessageState state,
        long visibleAt,
        int receiveCount,
        long firstReceiveTimestamp,
        long receivedAt,
        long receiptToken) {

    /** The stored message with this delivery state, its content unchanged. */
    public StoredMessage applyTo(StoredMessage m) {
        return new StoredMessage(
                m.messageId(),
                m.body(),
                m.attributes(),
                m.systemAttributes(),
                m.sentTimestamp(),
                m.senderId(),
                m.messageGroupId(),
                m.deduplicationId(),
                m.sequenceNumber(),
                m.deadLetterSourceArn(),
                state,
                visibleAt,
                receiveCount,
                firstReceiveTimestamp,
                receivedAt,
                receiptToken);
    }
}
