package io.sluice.queue;

/** What a send stored: the message id and, on FIFO queues, its sequence number; duplicate when deduplicated. */
public record SendOutcome(String messageId, String sequenceNumber, boolean duplicate) {}
