package io.sluice.queue;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * FIFO queues: each message group keeps its messages in send order. A group with a message in
 * flight is locked: none of its later messages is handed out until that one is deleted or
 * visible again. One receive may take several messages of a group, in order. Groups that may
 * be receivable wait in a rotation, so groups take turns.
 */
final class FifoReadySet implements ReadySet {
    private static final class Group {
        final String id;
        final ArrayDeque<MessageRecord> messages = new ArrayDeque<>();
        int inFlight;
        boolean queued;

        Group(String id) {
            this.id = id;
        }

        MessageRecord head() {
            return messages.peekFirst();
        }

        boolean receivable() {
            MessageRecord h = head();
            return inFlight == 0 && h != null && h.state == MessageState.VISIBLE;
        }
    }

    private final Map<String, Group> groups = new HashMap<>();
    private final ArrayDeque<Group> rotation = new ArrayDeque<>();
    /** The group the current receive is taking from, which it may go on taking from in order. */
    private Group current;

    @Override
    public void stored(MessageRecord r) {
        groups.computeIfAbsent(r.messageGroupId, Group::new).messages.addLast(r);
    }

    @Override
    public boolean becameVisible(MessageRecord r) {
        return offer(groups.get(r.messageGroupId));
    }

    @Override
    public void tookInFlight(MessageRecord r) {
        groups.get(r.messageGroupId).inFlight++;
    }

    @Override
    public void leftInFlight(MessageRecord r) {
        groups.get(r.messageGroupId).inFlight--;
    }

    @Override
    public boolean removed(MessageRecord r, MessageState lastState) {
        Group g = groups.get(r.messageGroupId);
        if (g == null) {
            return false;
        }
        g.messages.remove(r);
        if (lastState == MessageState.IN_FLIGHT) {
            g.inFlight--;
        }
        if (g.messages.isEmpty()) {
            groups.remove(g.id);
            return false;
        }
        return offer(g);
    }

    @Override
    public List<MessageRecord> inFlightWith(MessageRecord r) {
        Group g = groups.get(r.messageGroupId);
        if (g == null) {
            return List.of(r);
        }
        List<MessageRecord> out = new ArrayList<>(g.inFlight);
        for (MessageRecord m : g.messages) {
            if (m.state == MessageState.IN_FLIGHT) {
                out.add(m);
            }
        }
        return out;
    }

    @Override
    public MessageRecord next() {
        if (current != null) {
            MessageRecord follower = firstNotInFlight(current);
            if (follower != null && follower.state == MessageState.VISIBLE) {
                return follower;
            }
            current = null;
        }
        Group g;
        while ((g = rotation.pollFirst()) != null) {
            g.queued = false;
            if (groups.get(g.id) == g && g.receivable()) {
                current = g;
                return g.head();
            }
        }
        return null;
    }

    @Override
    public void endReceive() {
        current = null;
    }

    @Override
    public int size() {
        int stored = 0;
        for (Group g : groups.values()) {
            stored += g.messages.size();
        }
        return stored;
    }

    @Override
    public void clear() {
        groups.clear();
        rotation.clear();
        current = null;
    }

    private boolean offer(Group g) {
        if (g == null || !g.receivable()) {
            return false;
        }
        if (!g.queued) {
            g.queued = true;
            rotation.addLast(g);
        }
        return true;
    }

    /** Messages of a group in flight form a prefix of it, since a group is handed out in order. */
    private static MessageRecord firstNotInFlight(Group g) {
        for (MessageRecord r : g.messages) {
            if (r.state != MessageState.IN_FLIGHT) {
                return r;
            }
        }
        return null;
    }
}
