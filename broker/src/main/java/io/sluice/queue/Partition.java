package io.sluice.queue;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.function.ToLongFunction;
import java.util.random.RandomGenerator;

/**
 * The state machine of one queue partition: its stored messages, visible, in flight or delayed,
 * and on FIFO queues its message groups, deduplication records and receive attempts.
 *
 * <p>Not thread-safe by design: one event loop owns a partition and is the only caller, so the
 * hot path needs no locks. Deadlines (delay end, visibility expiry) live in one heap and are
 * applied when time has passed them, by {@link #advance}: on any call, and on the owner's
 * periodic tick, which advances every partition of its loop (retention and the deduplication and
 * receive-attempt windows expire there too); nothing is scheduled per message. Every change is
 * also appended to a list the owner drains and commits once per loop turn.
 */
public final class Partition {
    /** SQS caps a message's total visibility timeout at 12 hours from the receive. */
    public static final long MAX_VISIBILITY_MILLIS = 43_200_000L;
    /** How long a FIFO ReceiveRequestAttemptId is remembered. */
    public static final long ATTEMPT_WINDOW_MILLIS = 5 * 60_000L;

    private final Clock clock;
    private final LongSupplier retentionMillis;
    private final boolean fifo;
    private final int index;
    /** All messages in send order: the head is the oldest, so retention expiry scans from it. */
    private final LinkedHashMap<String, MessageRecord> messages = new LinkedHashMap<>();

    private final ReadySet ready;
    private final DeadlineHeap deadlines = new DeadlineHeap();
    private final List<PartitionChange> changes = new ArrayList<>();
    private final RandomGenerator tokens = new SplittableRandom();
    /** FIFO deduplication records and receive attempts, oldest first so expiry scans from the head. */
    private final LinkedHashMap<String, DedupEntry> dedup = new LinkedHashMap<>();

    private final LinkedHashMap<String, Attempt> attempts = new LinkedHashMap<>();

    private static final String SEQUENCE_ZEROS = "00000000000000000000";

    private int visibleCount;
    private int inFlightCount;
    private int delayedCount;
    /** See {@link #takeAddedDeadline()}. */
    private long addedDeadline = Long.MAX_VALUE;
    /** Messages that became receivable since the owner last asked: long polls wait for these. */
    private int newlyVisible;

    private final SequenceClock sequences;

    private record Attempt(List<AttemptRef> refs, long expiresAt) {}

    /**
     * @param clock           the time source
     * @param retentionMillis the queue's current MessageRetentionPeriod, read when expiring
     * @param fifo            whether messages are handed out by message group
     * @param index           this partition's number in its queue (part of FIFO sequence numbers)
     * @param sequences       where FIFO sequence numbers come from, shared by the node's partitions
     */
    public Partition(Clock clock, LongSupplier retentionMillis, boolean fifo, int index, SequenceClock sequences) {
        this.clock = clock;
        this.sequences = sequences;
        this.retentionMillis = retentionMillis;
        this.fifo = fifo;
        this.index = index;
        this.ready = fifo ? new FifoReadySet() : new StandardReadySet();
    }

    /** A standard-queue partition. */
    public Partition(Clock clock, LongSupplier retentionMillis) {
        this(clock, retentionMillis, false, 0, new SequenceClock());
    }

    /**
     * Stores a sent message, visible at once or after {@code delayMillis}, as a record of its own
     * ({@link MessageRecord#toStore()}): the caller's may be applied again. A message id already
     * stored here is not stored twice (a retried move or deduplicated send).
     *
     * @param dedupKey when not null, a FIFO deduplication key checked and recorded here
     */
    public SendOutcome send(MessageRecord sent, long delayMillis, String dedupKey) {
        long now = clock.millis();
        advance(now);
        if (dedupKey != null) {
            DedupEntry seen = dedup.get(dedupKey);
            if (seen != null && seen.confirmed()) {
                return new SendOutcome(seen.messageId(), seen.sequenceNumber(), true);
            }
        }
        MessageRecord existing = messages.get(sent.messageId);
        if (existing != null) {
            return new SendOutcome(existing.messageId, existing.sequenceNumber, true);
        }
        MessageRecord r = sent.toStore();
        if (fifo) {
            r.sequenceNumber = nextSequence(now);
        }
        if (messages.isEmpty()) {
            // Later messages expire later: only the first one's retention can be the earliest.
            noteDeadline(r.sentTimestamp + retentionMillis.getAsLong());
        }
        messages.put(r.messageId, r);
        ready.stored(r);
        if (delayMillis > 0) {
            r.state = MessageState.DELAYED;
            delayedCount++;
            schedule(r, now + delayMillis);
        } else {
            makeVisible(r, now);
        }
        changes.add(PartitionChange.MessageStored.of(r));
        if (dedupKey != null) {
            putDedup(dedupKey, new DedupEntry(r.messageId, r.sequenceNumber, now + DedupEntry.WINDOW_MILLIS));
        }
        return new SendOutcome(r.messageId, r.sequenceNumber, false);
    }

    /** A send without deduplication. */
    public SendOutcome send(MessageRecord r, long delayMillis) {
        return send(r, delayMillis, null);
    }

    /**
     * Queue-wide deduplication when the key's partition is not the group's: reserves the key for
     * {@code messageId}, or returns the entry already there (confirmed or not).
     */
    public DedupEntry reserveDedup(String key, String messageId) {
        long now = clock.millis();
        advance(now);
        DedupEntry seen = dedup.get(key);
        if (seen != null) {
            return seen;
        }
        putDedup(key, new DedupEntry(messageId, null, now + DedupEntry.WINDOW_MILLIS));
        return null;
    }

    /** Marks a reservation as stored, with the message's sequence number. */
    public void confirmDedup(String key, String messageId, String sequenceNumber) {
        DedupEntry seen = dedup.get(key);
        if (seen != null && seen.messageId().equals(messageId) && !seen.confirmed()) {
            putDedup(key, new DedupEntry(messageId, sequenceNumber, seen.expiresAt()));
        }
    }

    /**
     * Receives up to {@code max} messages, each put in flight for {@code visibilityMillis} with a
     * fresh receipt token. A message already received {@code maxReceiveCount} times (0: no
     * redrive) is not delivered but handed back for the dead-letter queue, held in flight for
     * {@code moveMillis} meanwhile.
     */
    public ReceiveOutcome receive(int max, long visibilityMillis, int maxReceiveCount, long moveMillis) {
        long now = clock.millis();
        advance(now);
        if (max <= 0 || visibleCount == 0) {
            return ReceiveOutcome.EMPTY;
        }
        List<Delivery> out = new ArrayList<>(Math.min(max, visibleCount));
        List<Delivery> toMove = List.of();
        long retention = retentionMillis.getAsLong();
        MessageRecord r;
        while (out.size() < max && (r = ready.next()) != null) {
            if (r.sentTimestamp + retention <= now) {
                drop(r);
                continue;
            }
            if (maxReceiveCount > 0 && r.receiveCount >= maxReceiveCount) {
                if (toMove.isEmpty()) {
                    toMove = new ArrayList<>();
                }
                toMove.add(takeInFlight(r, now, moveMillis, false));
                ready.endReceive();
                continue;
            }
            out.add(takeInFlight(r, now, visibilityMillis, true));
        }
        ready.endReceive();
        return new ReceiveOutcome(out, toMove);
    }

    /** A standard receive without redrive. */
    public List<Delivery> receive(int max, long visibilityMillis) {
        return receive(max, visibilityMillis, 0, 0).delivered();
    }

    /**
     * Deletes a message by the token of its receipt handle. On a standard queue, as SQS
     * documents, a request with an outdated handle (the message was received again since)
     * succeeds but deletes nothing, and so does one for a message that is already gone. On a
     * FIFO queue a handle whose visibility timeout has ended is refused.
     *
     * @return whether a message was deleted
     */
    public boolean delete(String messageId, long receiptToken) {
        advance(clock.millis());
        MessageRecord r = messages.get(messageId);
        boolean current = r != null && r.receiptToken == receiptToken && r.receiveCount > 0;
        if (fifo && r != null && (!current || r.state != MessageState.IN_FLIGHT)) {
            throw SqsException.invalidParameter(
                    "Value for parameter ReceiptHandle is invalid. Reason: The receipt handle has expired.");
        }
        if (!current) {
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
        // A standard message whose timeout ended keeps its latest handle until it is received
        // again: SQS accepts a change then. A FIFO handle expires with its timeout.
        if (r.state != MessageState.IN_FLIGHT && (fifo || r.state != MessageState.VISIBLE)) {
            throw new SqsException(ErrorCode.MESSAGE_NOT_INFLIGHT, "The message referred to isn't in flight.");
        }
        if (now + timeoutMillis > r.receivedAt + MAX_VISIBILITY_MILLIS) {
            throw SqsException.invalidParameter(
                    "Value " + timeoutMillis / 1000 + " for parameter VisibilityTimeout is invalid."
                            + " Reason: Total VisibilityTimeout for the message is beyond the limit [43200 seconds]");
        }
        if (r.state == MessageState.VISIBLE) {
            if (timeoutMillis > 0) {
                visibleCount--;
                r.state = MessageState.IN_FLIGHT;
                inFlightCount++;
                ready.tookInFlight(r);
                schedule(r, now + timeoutMillis);
                changes.add(PartitionChange.MessageStored.deliveryOf(r));
            }
            return;
        }
        // On a FIFO queue the group's in-flight messages share one visibility: they were
        // received together, and they come back together, in order.
        for (MessageRecord m : ready.inFlightWith(r)) {
            if (timeoutMillis == 0) {
                deadlines.remove(m);
                leaveInFlight(m, now);
            } else {
                schedule(m, now + timeoutMillis);
            }
            changes.add(PartitionChange.MessageStored.deliveryOf(m));
        }
    }

    /** Removes every message, visible, in flight or delayed. Deduplication records stay, as in SQS. */
    public void purge() {
        for (MessageRecord r : messages.values()) {
            r.removed = true;
            changes.add(new PartitionChange.MessageRemoved(r.messageId));
        }
        forgetMessages();
    }

    /**
     * Removes everything the partition holds, each removal a change for storage: its queue was
     * deleted, and none of its messages, deduplication records or receive attempts may outlive it
     * in the replicas, from which a queue of the same name created later would be rebuilt.
     */
    public void erase() {
        purge();
        for (String key : dedup.keySet()) {
            changes.add(new PartitionChange.DedupRemoved(key));
        }
        for (String attemptId : attempts.keySet()) {
            changes.add(new PartitionChange.AttemptRemoved(attemptId));
        }
        release();
    }

    /**
     * Lets go of everything once the partition's owner stops serving it (its queue was deleted, or
     * it moved to another node, which rebuilds it from the replica). Changes not yet committed stay
     * for a commit under way. The insertion-ordered maps are emptied entry by entry because their
     * entries link to one another: after {@code clear()}, an entry the collector had already moved
     * to the old generation would still reach every later one, and each young collection would
     * copy them all again until an old-generation cycle, which a lightly used heap rarely starts.
     */
    public void release() {
        forgetMessages();
        unlinkAll(dedup);
        unlinkAll(attempts);
        newlyVisible = 0;
    }

    private void forgetMessages() {
        unlinkAll(messages);
        ready.clear();
        deadlines.clear();
        visibleCount = 0;
        inFlightCount = 0;
        delayedCount = 0;
    }

    /** Empties an insertion-ordered map so that no entry keeps a link to another. */
    private static void unlinkAll(LinkedHashMap<String, ?> map) {
        Iterator<?> entries = map.values().iterator();
        while (entries.hasNext()) {
            entries.next();
            entries.remove();
        }
    }

    /**
     * Rebuilds the partition from its replica when this node becomes its owner: records in send
     * order, each put back where its state and {@code visibleAt} say (deadlines that passed while
     * nobody owned the partition are applied at once), plus the deduplication records and
     * receive attempts still within their windows. Nothing here is a new change.
     */
    public void restore(PartitionSnapshot snapshot) {
        Map<String, DedupEntry> dedupEntries = snapshot.dedup();
        Map<String, StoredAttempt> storedAttempts = snapshot.attempts();
        List<StoredMessage> ordered = new ArrayList<>(snapshot.messages());
        // FIFO order is the order the partition stored messages in, which sequence numbers record
        // (zero-padded, so text order is number order); sent times may come from other nodes' clocks.
        ordered.sort(
                fifo
                        ? Comparator.comparing(StoredMessage::sequenceNumber)
                        : Comparator.comparingLong(StoredMessage::sentTimestamp));
        for (StoredMessage s : ordered) {
            MessageRecord r = MessageRecord.restore(s);
            messages.put(r.messageId, r);
            ready.stored(r);
            switch (s.state()) {
                case VISIBLE -> makeVisible(r, r.visibleAt);
                case DELAYED -> {
                    delayedCount++;
                    schedule(r, r.visibleAt);
                }
                case IN_FLIGHT -> {
                    inFlightCount++;
                    ready.tookInFlight(r);
                    schedule(r, r.visibleAt);
                }
            }
        }
        dedupEntries.entrySet().stream()
                .sorted(Map.Entry.comparingByValue(Comparator.comparingLong(DedupEntry::expiresAt)))
                .forEach(e -> dedup.put(e.getKey(), e.getValue()));
        storedAttempts.forEach((id, a) -> attempts.put(id, new Attempt(a.refs(), a.expiresAt())));
        // Expiries found here are real changes: storage must forget those records too.
        advance(clock.millis());
    }

    /** Remembers what a FIFO receive attempt returned, for a retry with the same attempt id. */
    public void rememberAttempt(String attemptId, List<AttemptRef> refs) {
        long now = clock.millis();
        Attempt a = new Attempt(List.copyOf(refs), now + ATTEMPT_WINDOW_MILLIS);
        attempts.remove(attemptId);
        if (attempts.isEmpty()) {
            noteDeadline(a.expiresAt);
        }
        attempts.put(attemptId, a);
        changes.add(new PartitionChange.AttemptStored(attemptId, new StoredAttempt(a.refs, a.expiresAt)));
    }

    /** What an earlier attempt with this id returned, or null when none is remembered. */
    public List<AttemptRef> recallAttempt(String attemptId) {
        advance(clock.millis());
        Attempt a = attempts.get(attemptId);
        return a == null ? null : a.refs;
    }

    /** The message again, as delivered with this token, while that receive's visibility timeout lasts. */
    public Delivery redeliver(String messageId, long token) {
        advance(clock.millis());
        MessageRecord r = messages.get(messageId);
        if (r == null || r.receiptToken != token || r.state != MessageState.IN_FLIGHT) {
            return null;
        }
        return r.deliver();
    }

    /** Applies every deadline and expiry that is due; the owner's tick calls this. */
    public void advance(long now) {
        MessageRecord r;
        while ((r = deadlines.peek()) != null && r.visibleAt <= now) {
            deadlines.poll();
            if (r.state == MessageState.DELAYED) {
                delayedCount--;
                makeVisible(r, r.visibleAt);
            } else {
                leaveInFlight(r, r.visibleAt);
            }
        }
        expire(now);
        ready.trim(visibleCount);
    }

    /**
     * The earliest time {@link #advance} may change something: a delay end, a visibility expiry,
     * a retention expiry or the end of a FIFO deduplication or receive-attempt window; {@link
     * Long#MAX_VALUE} when nothing is pending. Never late for the current retention period.
     */
    public long nextDeadline() {
        long next = Long.MAX_VALUE;
        MessageRecord d = deadlines.peek();
        if (d != null) {
            next = d.visibleAt;
        }
        if (!messages.isEmpty()) {
            next = Math.min(next, oldestSentTimestamp() + retentionMillis.getAsLong());
        }
        if (!dedup.isEmpty()) {
            next = Math.min(next, dedup.values().iterator().next().expiresAt());
        }
        if (!attempts.isEmpty()) {
            next = Math.min(next, attempts.values().iterator().next().expiresAt());
        }
        return next;
    }

    /**
     * The earliest deadline added since the last call ({@link Long#MAX_VALUE}: none), so the owner
     * re-arms its timer after a request without computing {@link #nextDeadline()}; reading resets it.
     * Entries are appended in time order, so only a delay, a visibility timeout, or the first record
     * of an empty partition, dedup window or attempt window can move the next deadline earlier.
     */
    public long takeAddedDeadline() {
        long at = addedDeadline;
        addedDeadline = Long.MAX_VALUE;
        return at;
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

    public boolean hasChanges() {
        return !changes.isEmpty();
    }

    /** Forgets the changes since the last drain: for an owner with nowhere to write them. */
    public void discardChanges() {
        changes.clear();
    }

    /** How many messages the ready set keeps reachable, stale entries included. */
    int readySetEntries() {
        return ready.size();
    }

    /** How many delays and visibility timeouts are pending: one at most per stored message. */
    int pendingDeadlines() {
        return deadlines.size();
    }

    public int visibleCount() {
        return visibleCount;
    }

    public int inFlightCount() {
        return inFlightCount;
    }

    public int delayedCount() {
        return delayedCount;
    }

    public int size() {
        return messages.size();
    }

    /** When the oldest message still held was sent (messages are kept in arrival order), or 0 when none is. */
    public long oldestSentTimestamp() {
        return messages.isEmpty() ? 0 : messages.values().iterator().next().sentTimestamp;
    }

    private Delivery takeInFlight(MessageRecord r, long now, long timeoutMillis, boolean countsAsReceive) {
        visibleCount--;
        r.state = MessageState.IN_FLIGHT;
        inFlightCount++;
        ready.tookInFlight(r);
        if (countsAsReceive) {
            r.receiveCount++;
            if (r.firstReceiveTimestamp == 0) {
                r.firstReceiveTimestamp = now;
            }
        }
        r.receivedAt = now;
        r.receiptToken = tokens.nextLong();
        schedule(r, now + timeoutMillis);
        changes.add(PartitionChange.MessageStored.deliveryOf(r));
        return r.deliver();
    }

    private void leaveInFlight(MessageRecord r, long at) {
        inFlightCount--;
        ready.leftInFlight(r);
        makeVisible(r, at);
    }

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
        expireHead(dedup, now, DedupEntry::expiresAt, PartitionChange.DedupRemoved::new);
        expireHead(attempts, now, Attempt::expiresAt, PartitionChange.AttemptRemoved::new);
    }

    private <V> void expireHead(
            LinkedHashMap<String, V> map,
            long now,
            ToLongFunction<V> expiresAt,
            Function<String, PartitionChange> removal) {
        Iterator<Map.Entry<String, V>> it = map.entrySet().iterator();
        while (it.hasNext()) {
            Map.Entry<String, V> e = it.next();
            if (expiresAt.applyAsLong(e.getValue()) > now) {
                break;
            }
            it.remove();
            changes.add(removal.apply(e.getKey()));
        }
    }

    private void putDedup(String key, DedupEntry e) {
        dedup.remove(key);
        if (dedup.isEmpty()) {
            noteDeadline(e.expiresAt());
        }
        dedup.put(key, e);
        changes.add(new PartitionChange.DedupStored(key, e));
    }

    /**
     * FIFO sequence numbers: increasing across the node's partitions (so within the queue and
     * every group), close to time order, and distinct across nodes' partitions by the low part;
     * 20 digits, zero-padded, as SQS writes them (padded by hand: String.format took 6 % of a FIFO
     * run's CPU).
     */
    private String nextSequence(long now) {
        String digits = Long.toString(sequences.next(now) * 1024 + index);
        return SEQUENCE_ZEROS.substring(digits.length()) + digits;
    }

    private void makeVisible(MessageRecord r, long at) {
        r.state = MessageState.VISIBLE;
        r.visibleAt = at;
        visibleCount++;
        if (ready.becameVisible(r)) {
            newlyVisible++;
        }
    }

    private void schedule(MessageRecord r, long at) {
        deadlines.schedule(r, at);
        noteDeadline(at);
    }

    private void noteDeadline(long at) {
        if (at < addedDeadline) {
            addedDeadline = at;
        }
    }

    private void drop(MessageRecord r) {
        messages.remove(r.messageId);
        forget(r);
    }

    private void forget(MessageRecord r) {
        if (r.removed) {
            return;
        }
        r.removed = true;
        deadlines.remove(r);
        switch (r.state) {
            // A visible record may stay in the ready set's structures until a receive skips it or a trim drops it.
            case VISIBLE -> visibleCount--;
            case IN_FLIGHT -> inFlightCount--;
            case DELAYED -> delayedCount--;
        }
        if (ready.removed(r, r.state)) {
            newlyVisible++;
        }
        changes.add(new PartitionChange.MessageRemoved(r.messageId));
    }
}
