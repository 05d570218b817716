package io.sluice.queue;

/** Where a stored message is in its life cycle; deleted messages are simply gone. */
public enum MessageState {
    /** Sent with a delay that has not ended yet. */
    DELAYED,
    /** Waiting to be received. */
    VISIBLE,
    /** Received and not deleted; visible again when its visibility timeout ends. */
    IN_FLIGHT
}
