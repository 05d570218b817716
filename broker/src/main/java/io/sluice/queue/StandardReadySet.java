package io.sluice.queue;

import java.util.ArrayDeque;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Set;

/**
 * Standard queues: visible messages in the order they became visible. Entries of messages that
 * were removed or taken in flight by other means than a receive are skipped when reached, and
 * dropped by {@link #trim} once they outnumber the receivable ones.
 */
final class StandardReadySet implements ReadySet {
    /** Entries beyond twice the receivable messages that {@link #trim} tolerates before it compacts. */
    private static final int TRIM_SLACK = 64;

    private final ArrayDeque<MessageRecord> visible = new ArrayDeque<>();

    @Override
    public void stored(MessageRecord r) {}

    @Override
    public boolean becameVisible(MessageRecord r) {
        visible.addLast(r);
        return true;
    }

    @Override
    public void tookInFlight(MessageRecord r) {}

    @Override
    public void leftInFlight(MessageRecord r) {}

    @Override
    public boolean removed(MessageRecord r, MessageState lastState) {
        return false;
    }

    @Override
    public MessageRecord next() {
        MessageRecord r;
        while ((r = visible.pollFirst()) != null) {
            if (!r.removed && r.state == MessageState.VISIBLE) {
                return r;
            }
        }
        return null;
    }

    @Override
    public void endReceive() {}

    @Override
    public void trim(int receivable) {
        if (visible.size() <= 2 * receivable + TRIM_SLACK) {
            return;
        }
        // A message made visible, taken in flight by ChangeMessageVisibility and made visible again
        // has two entries: only its first stays.
        Set<MessageRecord> kept = Collections.newSetFromMap(new IdentityHashMap<>());
        visible.removeIf(r -> r.removed || r.state != MessageState.VISIBLE || !kept.add(r));
    }

    @Override
    public int size() {
        return visible.size();
    }

    @Override
    public void clear() {
        visible.clear();
    }
}
