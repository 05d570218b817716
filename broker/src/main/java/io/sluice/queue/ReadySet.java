package io.sluice.queue;

import java.util.List;

/**
 * Which stored messages a receive may take next. Standard queues take any visible message,
 * oldest first; FIFO queues take messages of unlocked groups in group order. The partition
 * reports every state change; the set decides what is receivable.
 */
interface ReadySet {
    /** A message was stored, in any state. */
    void stored(MessageRecord r);

    /** A message became visible. @return whether receivable messages may have appeared */
    boolean becameVisible(MessageRecord r);

    /** A visible message was taken by a receive. */
    void tookInFlight(MessageRecord r);

    /** An in-flight message's timeout ended (it becomes visible right after). */
    void leftInFlight(MessageRecord r);

    /** A message was deleted, expired or moved. @return whether receivable messages may have appeared */
    boolean removed(MessageRecord r, MessageState lastState);

    /**
     * The in-flight messages whose visibility changes with {@code r}'s: on FIFO queues its
     * group's in-flight messages, in group order; otherwise {@code r} alone.
     */
    default List<MessageRecord> inFlightWith(MessageRecord r) {
        return List.of(r);
    }

    /** The next message this receive may take, or null; {@link #endReceive()} closes the receive. */
    MessageRecord next();

    void endReceive();

    /**
     * Drops what the set holds for messages that are no longer receivable, when that is much more
     * than the {@code receivable} messages there are: a set that forgets lazily must not keep
     * messages that expired or were deleted while nobody received. Called after deadlines and
     * expiries were applied.
     */
    default void trim(int receivable) {}

    /** How many entries the set holds, stale ones included: what it keeps reachable. */
    int size();

    void clear();
}
