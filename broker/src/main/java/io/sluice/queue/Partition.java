package io.sluice.queue;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.PriorityQueue;
import java.util.function.LongSupplier;

/**
 * The state machine of one queue partition: its stored messages, visible, in flight or delayed.
 *
 * <p>Not thread-safe by design: one event loop owns a partition and is the only caller, so the
 * hot path needs no locks. Deadlines (delay end, visibility expiry) live in one heap and are
 * applied when time has passed them, on any call or on the owner's periodic tick; nothing is
 * scheduled per message. Every change is also appended to a list the owner drains and commits
 * once per loop turn.
 */
public final class Partition {
    /** SQS caps a message's total visibility timeout at 12 hours from the receive. */
    public static final long MAX_VISIBILITY_MILLIS = 43_200_000L;

    private final Clock clock;
    private final LongSupplier retentionMillis;
    /** All messages in send order: the head is the oldest, so retention expiry scans from it. */
    private final LinkedHashMap<String, MessageRecord> messages = new LinkedHashMap<>();
    /** Messages ready to receive, oldest first; deleted ones are skipped when they come up. */
    private final ArrayDeque<MessageRecord> visible = new ArrayDeque<>();
    private final PriorityQueue<Deadline> deadlines = new PriorityQueue<>();
    private final List<PartitionChange> changes = new ArrayList<>();
    private final java.util.random.RandomGenerator tokens = new java.util.SplittableRandom();

    private int visibleCount;
    private int inFlightCount;
    private int delayedCount;
    /** Messages that became visible since the owner last asked: long polls wait for these. */
    private int newlyVisible;

    private record Deadline(long at, MessageRecord record, int version) implements Comparable<Deadline> {
        @Override
        public int compareTo(Deadline o) { return Long.compare(at, o.at); }
    }

    /**
     * @param clock           the time source
     * @param retentionMillis the queue's current MessageRetentionPeriod, read when expiring
     */
    public Partition(Clock clock, LongSupplier retentionMillis) {
        this.clock = clock;
        this.retentionMillis = retentionMillis;
    }

    /** Stores a sent message; it is visible at once or after {@code delayMillis}. */
    public void send(MessageRecord r, long delayMillis) {
        long now = clock.millis();
        advance(now);
        messages.put(r.messageId, r);
        if (delayMillis > 0) {
            r.state = MessageState.DELAYED;
            delayedCount++;
            schedule(r, now + delayMillis);
        } else {
            makeVisible(r, now);
        }
        changes.add(PartitionChange.upsert(r));
    }

    /**
     * Receives up to {@code max} visible messages, oldest first, each put in flight for
     * {@code visibilityMillis} with a fresh receipt token.
     */
    public List<Delivery> receive(int max, long visibilityMillis) {
        long now = clock.millis();
        advance(now);
        List<Delivery> out = new ArrayList<>(Math.min(max, visibleCount));
        long retention = retentionMillis.getAsLong();
        while (out.size() < max) {
            MessageRecord r = visible.pollFirst();
            if (r == null) {
                break;
            }
            if (r.removed) {
                continue;
            }
            if (r.sentTimestamp + retention <= now) {
                drop(r);
                continue;
            }
            visibleCount--;
            r.state = MessageState.IN_FLIGHT;
            inFlightCount++;
            r.receiveCount++;
            if (r.firstReceiveTimestamp == 0) {
                r.firstReceiveTimestamp = now;
            }
            r.receivedAt = now;
            r.receiptToken = tokens.nextLong();
            schedule(r, now + visibilityMillis);
            changes.add(PartitionChange.upsert(r));
            out.add(r.deliver());
        }
        return out;
    }

    /**
     * Deletes a message by the token of its receipt handle. As SQS documents, a request with an
     * outdated handle (the message was received again since) succeeds but deletes nothing, and
     * so does one for a message that is already gone.
     *
     * @return whether a message was deleted
     */
    public boolean delete(String messageId, long receiptToken) {
        advance(clock.millis());
        MessageRecord r = messages.get(messageId);
        if (r == null || r.receiptToken != receiptToken || r.receiveCount == 0) {
            return false;
        }
        drop(r);
        return true;
    }

    /**
     * Sets the message's visibility timeout to {@code timeoutMillis} counted from now, not added
     * to what is left. Zero makes it visible at once.
     */
    public void changeVisibility(String messageId, long receiptToken, long timeoutMillis, String receiptHandle) {
        long now = clock.millis();
        advance(now);
        MessageRecord r = messages.get(messageId);
        if (r == null || r.receiptToken != receiptToken || r.receiveCount == 0) {
            throw SqsException.invalidParameter("Value " + receiptHandle + " for parameter ReceiptHandle is invalid."
                    + " Reason: Message does not exist or is not available for visibility timeout change.");
        }
        if (r.state != MessageState.IN_FLIGHT) {
            throw new SqsException(ErrorCode.MESSAGE_NOT_INFLIGHT, "The message referred to isn't in flight.");
        }
        if (now + timeoutMillis > r.receivedAt + MAX_VISIBILITY_MILLIS) {
            throw SqsException.invalidParameter("Value " + timeoutMillis / 1000 + " for parameter VisibilityTimeout is invalid."
                    + " Reason: Total VisibilityTimeout for the message is beyond the limit [43200 seconds]");
        }
        if (timeoutMillis == 0) {
            r.deadlineVersion++;
            inFlightCount--;
            makeVisible(r, now);
        } else {
            schedule(r, now + timeoutMillis);
        }
        changes.add(PartitionChange.upsert(r));
    }

    /** Removes every message, visible, in flight or delayed. */
    public void purge() {
        for (MessageRecord r : messages.values()) {
            r.removed = true;
        }
        messages.clear();
        visible.clear();
        deadlines.clear();
        visibleCount = 0;
        inFlightCount = 0;
        delayedCount = 0;
        changes.add(PartitionChange.clear());
    }

    /** Applies every deadline and retention expiry that is due; the owner's tick calls this. */
    public void advance(long now) {
        Deadline d;
        while ((d = deadlines.peek()) != null && d.at <= now) {
            deadlines.poll();
            MessageRecord r = d.record;
            if (r.removed || r.deadlineVersion != d.version) {
                continue;
            }
            if (r.state == MessageState.DELAYED) {
                delayedCount--;
            } else {
                inFlightCount--;
            }
            makeVisible(r, d.at);
        }
        expire(now);
    }

    /** Long-poll waiters need to hear of these; reading resets the count. */
    public int takeNewlyVisible() {
        int n = newlyVisible;
        newlyVisible = 0;
        return n;
    }

    /** The changes since the last call, for the owner to commit as one batch. */
    public List<PartitionChange> drainChanges() {
        if (changes.isEmpty()) {
            return List.of();
        }
        List<PartitionChange> out = new ArrayList<>(changes);
        changes.clear();
        return out;
    }

    public boolean hasChanges() { return !changes.isEmpty(); }

    /** When the next deadline falls, or {@link Long#MAX_VALUE}; lets the tick skip idle partitions. */
    public long nextDeadline() {
        Deadline d = deadlines.peek();
        return d == null ? Long.MAX_VALUE : d.at;
    }

    public int visibleCount() { return visibleCount; }
    public int inFlightCount() { return inFlightCount; }
    public int delayedCount() { return delayedCount; }
    public int size() { return messages.size(); }

    private void expire(long now) {
        long retention = retentionMillis.getAsLong();
        Iterator<MessageRecord> it = messages.values().iterator();
        while (it.hasNext()) {
            MessageRecord r = it.next();
            if (r.sentTimestamp + retention > now) {
                break;
            }
            it.remove();
            forget(r);
        }
    }

    private void makeVisible(MessageRecord r, long at) {
        r.state = MessageState.VISIBLE;
        r.visibleAt = at;
        visible.addLast(r);
        visibleCount++;
        newlyVisible++;
    }

    private void schedule(MessageRecord r, long at) {
        r.visibleAt = at;
        r.deadlineVersion++;
        deadlines.add(new Deadline(at, r, r.deadlineVersion));
    }

    /** Removes a message that is not in the visible deque any more (or will be skipped there). */
    private void drop(MessageRecord r) {
        messages.remove(r.messageId);
        forget(r);
    }

    private void forget(MessageRecord r) {
        if (r.removed) {
            return;
        }
        r.removed = true;
        switch (r.state) {
            // A visible record stays in the deque and is skipped there when it comes up.
            case VISIBLE -> visibleCount--;
            case IN_FLIGHT -> inFlightCount--;
            case DELAYED -> delayedCount--;
        }
        changes.add(PartitionChange.remove(r));
    }
}
