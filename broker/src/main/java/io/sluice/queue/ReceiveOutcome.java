package io.sluice.queue;

import java.util.List;

/**
 * What a partition's receive produced: messages for the receiver, and messages received more
 * than the redrive policy's maxReceiveCount, which the caller must move to the dead-letter queue
 * (they stay in flight here until the move deletes them, so a failed move loses nothing).
 */
public record ReceiveOutcome(List<Delivery> delivered, List<Delivery> toMove) {
    public static final ReceiveOutcome EMPTY = new ReceiveOutcome(List.of(), List.of());
}
