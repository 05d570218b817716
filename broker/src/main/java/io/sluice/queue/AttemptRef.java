package io.sluice.queue;

/** One message a FIFO receive attempt returned: enough to hand the same message and handle out again. */
public record AttemptRef(int partition, String messageId, long token) {}
