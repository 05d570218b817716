package io.sluice.queue;

import java.util.ArrayDeque;

/** Standard queues: visible messages in the order they became visible; removed ones are skipped lazily. */
final class StandardReadySet implements ReadySet {
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
    public void clear() {
        visible.clear();
    }
}
