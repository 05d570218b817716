package io.sluice.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** FIFO partitions, dead-letter redrive and move pacing, with a fake clock. */
class FifoPartitionTest {
    private final FakeClock clock = new FakeClock();
    private final Partition partition = new Partition(clock, () -> 345_600_000L, true, 3, new SequenceClock());
    private int sequence;

    private MessageRecord message(String group, String body) {
        return new MessageRecord(
                "m" + (++sequence), body, Map.of(), Map.of(), clock.millis(), "s", group, "d" + sequence, null);
    }

    private List<String> bodies(List<Delivery> ds) {
        return ds.stream().map(Delivery::body).toList();
    }

    @Test
    void messagesThatExpireUnreceivedLeaveTheirGroups() {
        Partition shortLived = new Partition(clock, () -> 60_000L, true, 3, new SequenceClock());
        for (int i = 0; i < 1_000; i++) {
            shortLived.send(message("G" + i % 10, "old" + i), 0);
        }
        assertEquals(1_000, shortLived.readySetEntries());
        clock.advanceSeconds(61);
        shortLived.advance(clock.millis());
        assertEquals(0, shortLived.size());
        assertEquals(0, shortLived.readySetEntries(), "expired messages must not stay in their groups");
        shortLived.send(message("G0", "new"), 0);
        assertEquals(List.of("new"), bodies(shortLived.receive(10, 30_000)));
    }

    @Test
    void aGroupStaysDeliverableWhenASendIsAppliedAgainToARebuiltPartition() {
        // Stop 24's loss: sends applied after a failed commit began ran again at the rebuilt partition
        // with the same records; the first receive there threw half way and left the group's head in
        // flight with no deadline, so nothing more of the group was ever delivered.
        MessageRecord first = message("G", "g1");
        MessageRecord second = message("G", "g2");
        partition.send(first, 0);
        partition.send(second, 0);
        assertEquals(List.of("g1"), bodies(partition.receive(1, 30_000)));

        Partition rebuilt = new Partition(clock, () -> 345_600_000L, true, 3, new SequenceClock());
        rebuilt.send(first, 0);
        rebuilt.send(second, 0);
        List<Delivery> head = rebuilt.receive(1, 30_000);
        assertEquals(List.of("g1"), bodies(head));
        assertTrue(rebuilt.receive(10, 30_000).isEmpty(), "the group is locked while g1 is in flight");
        rebuilt.delete(head.get(0).messageId(), head.get(0).receiptToken());
        assertEquals(List.of("g2"), bodies(rebuilt.receive(10, 30_000)));
    }

    @Test
    void groupIsLockedWhileAMessageOfItIsInFlight() {
        partition.send(message("A", "a1"), 0);
        partition.send(message("A", "a2"), 0);
        partition.send(message("B", "b1"), 0);
        List<Delivery> first = partition.receive(1, 30_000);
        assertEquals(List.of("a1"), bodies(first));
        assertEquals(List.of("b1"), bodies(partition.receive(10, 30_000)), "A is locked; B is not");
        assertTrue(partition.receive(10, 30_000).isEmpty());
        partition.delete(first.get(0).messageId(), first.get(0).receiptToken());
        assertEquals(1, partition.takeNewlyVisible() > 0 ? 1 : 0, "unlocking a group wakes waiters");
        assertEquals(List.of("a2"), bodies(partition.receive(10, 30_000)));
    }

    @Test
    void oneReceiveTakesSeveralMessagesOfAGroupInOrder() {
        for (int i = 1; i <= 4; i++) {
            partition.send(message("A", "a" + i), 0);
        }
        partition.send(message("B", "b1"), 0);
        List<Delivery> got = partition.receive(10, 30_000);
        assertEquals(5, got.size());
        List<String> a = bodies(got).stream().filter(b -> b.startsWith("a")).toList();
        assertEquals(List.of("a1", "a2", "a3", "a4"), a);
    }

    @Test
    void aGroupsInFlightMessagesShareOneVisibility() {
        for (String b : List.of("a1", "a2", "a3")) {
            partition.send(message("A", b), 0);
        }
        List<Delivery> got = partition.receive(2, 30_000);
        assertEquals(List.of("a1", "a2"), bodies(got));
        assertEquals(2, partition.inFlightCount());
        // extending one extends the group
        clock.advanceSeconds(10);
        partition.changeVisibility(got.get(1).messageId(), got.get(1).receiptToken(), 60_000, "h");
        clock.advanceSeconds(30);
        assertTrue(partition.receive(10, 30_000).isEmpty(), "the whole group is still in flight");
        assertEquals(2, partition.inFlightCount());
        // releasing the later one releases the group, which comes back from its head, in order
        partition.changeVisibility(got.get(1).messageId(), got.get(1).receiptToken(), 0, "h");
        assertEquals(0, partition.inFlightCount());
        assertEquals(3, partition.visibleCount());
        assertEquals(List.of("a1", "a2", "a3"), bodies(partition.receive(10, 30_000)));
    }

    @Test
    void receivesWithVisibilityTimeoutZeroReturnTheGroupInOrderEachTime() {
        for (String b : List.of("a1", "a2", "a3")) {
            partition.send(message("A", b), 0);
        }
        for (int i = 0; i < 3; i++) {
            assertEquals(List.of("a1", "a2", "a3"), bodies(partition.receive(10, 0)));
        }
        assertEquals(List.of("a1"), bodies(partition.receive(1, 0)));
        assertEquals(List.of("a1", "a2"), bodies(partition.receive(2, 0)));
    }

    @Test
    void aFifoHandleExpiresWithItsTimeout() {
        partition.send(message("A", "a1"), 0);
        Delivery d = partition.receive(1, 1_000).get(0);
        clock.advanceSeconds(2);
        assertEquals(
                ErrorCode.MESSAGE_NOT_INFLIGHT,
                assertThrows(
                                SqsException.class,
                                () -> partition.changeVisibility(d.messageId(), d.receiptToken(), 5_000, "h"))
                        .code());
    }

    @Test
    void visibilityExpiryUnlocksTheGroupAndRedeliversInOrder() {
        partition.send(message("A", "a1"), 0);
        partition.send(message("A", "a2"), 0);
        partition.receive(1, 1_000);
        clock.advanceSeconds(1);
        assertEquals(List.of("a1", "a2"), bodies(partition.receive(10, 30_000)));
    }

    @Test
    void deleteWithAnExpiredHandleFailsOnFifo() {
        partition.send(message("A", "a1"), 0);
        Delivery d = partition.receive(1, 1_000).get(0);
        clock.advanceSeconds(2);
        SqsException e = assertThrows(SqsException.class, () -> partition.delete(d.messageId(), d.receiptToken()));
        assertEquals(ErrorCode.INVALID_PARAMETER_VALUE, e.code());
        assertEquals(1, partition.size());
    }

    @Test
    void sequenceNumbersIncreaseAndCarryThePartition() {
        SendOutcome one = partition.send(message("A", "x"), 0, null);
        SendOutcome two = partition.send(message("B", "y"), 0, null);
        assertEquals(20, one.sequenceNumber().length());
        assertTrue(two.sequenceNumber().compareTo(one.sequenceNumber()) > 0);
        assertEquals(3, Long.parseLong(one.sequenceNumber()) % 1024);
    }

    @Test
    void duplicateWithinFiveMinutesIsAnsweredWithTheOriginalEvenAfterDelete() {
        SendOutcome first = partition.send(message("A", "x"), 0, "dedup-1");
        SendOutcome again = partition.send(message("A", "x"), 0, "dedup-1");
        assertTrue(again.duplicate());
        assertEquals(first.messageId(), again.messageId());
        assertEquals(first.sequenceNumber(), again.sequenceNumber());
        assertEquals(1, partition.size());
        Delivery d = partition.receive(1, 30_000).get(0);
        partition.delete(d.messageId(), d.receiptToken());
        clock.advanceSeconds(299);
        assertTrue(partition.send(message("A", "x"), 0, "dedup-1").duplicate(), "still within the window");
        assertEquals(0, partition.size());
        clock.advanceSeconds(1);
        SendOutcome later = partition.send(message("A", "x"), 0, "dedup-1");
        assertFalse(later.duplicate(), "the window is 5 minutes");
        assertEquals(1, partition.size());
    }

    @Test
    void releaseForgetsMessagesGroupsAndDeduplicationButKeepsUncommittedChanges() {
        partition.send(message("A", "a1"), 0, "dedup-a1");
        partition.send(message("B", "b1"), 0, "dedup-b1");
        partition.reserveDedup("k", "id-1");
        assertEquals(1, partition.receive(1, 30_000).size());
        partition.release();
        assertEquals(0, partition.size());
        assertEquals(0, partition.visibleCount() + partition.inFlightCount() + partition.delayedCount());
        assertEquals(Long.MAX_VALUE, partition.nextDeadline(), "no visibility timeout or deduplication window left");
        assertTrue(partition.receive(10, 30_000).isEmpty());
        assertNull(partition.reserveDedup("k", "id-2"), "the reservation is gone");
        assertFalse(partition.drainChanges().isEmpty(), "a commit under way still gets what was applied");
    }

    @Test
    void reservedDedupKeysAreConfirmedAfterTheStore() {
        assertNull(partition.reserveDedup("k", "id-1"));
        DedupEntry pending = partition.reserveDedup("k", "id-2");
        assertEquals("id-1", pending.messageId());
        assertFalse(pending.confirmed(), "a retry must store under id-1, not give up");
        partition.confirmDedup("k", "id-1", "00000000000000000042");
        assertTrue(partition.reserveDedup("k", "id-3").confirmed());
        clock.advanceSeconds(300);
        assertNull(partition.reserveDedup("k", "id-4"), "expired after 5 minutes");
    }

    /**
     * The two-partition send of SendActions when the confirmation was lost (the dedup home's node
     * died after the group's partition stored the message): the client's retry finds the key
     * reserved but unconfirmed and stores under the reserved id again. The group's partition knows
     * the key, so a message received and deleted meanwhile does not come back.
     */
    @Test
    void retryAfterALostConfirmationDoesNotStoreADeletedMessageAgain() {
        Partition dedupHome = new Partition(clock, () -> 345_600_000L, true, 5, new SequenceClock());
        MessageRecord first = message("A", "a1");
        assertNull(dedupHome.reserveDedup("k", first.messageId));
        SendOutcome stored = partition.send(first, 0, "k");
        assertFalse(stored.duplicate());
        // ConfirmDedup never reached the dedup home.
        Delivery d = partition.receive(1, 30_000).get(0);
        assertTrue(partition.delete(d.messageId(), d.receiptToken()));

        DedupEntry pending = dedupHome.reserveDedup("k", "m-retry");
        assertFalse(pending.confirmed());
        MessageRecord retry = message("A", "a1").withMessageId(pending.messageId());
        SendOutcome again = partition.send(retry, 0, "k");
        assertTrue(again.duplicate(), "the group's partition stored this key already");
        assertEquals(stored.sequenceNumber(), again.sequenceNumber());
        assertEquals(0, partition.size(), "the deleted message is not stored again");
        assertTrue(partition.receive(10, 30_000).isEmpty());
    }

    @Test
    void receiveAttemptsAreRememberedForFiveMinutesAndRedeliverWhileInFlight() {
        partition.send(message("A", "a1"), 0);
        Delivery d = partition.receive(1, 60_000).get(0);
        partition.rememberAttempt("att", List.of(new AttemptRef(3, d.messageId(), d.receiptToken())));
        assertEquals(1, partition.recallAttempt("att").size());
        Delivery again = partition.redeliver(d.messageId(), d.receiptToken());
        assertNotNull(again);
        assertEquals(d.receiptToken(), again.receiptToken(), "same receipt handle");
        clock.advanceSeconds(61);
        assertNull(partition.redeliver(d.messageId(), d.receiptToken()), "visibility timeout over");
        clock.advanceSeconds(240);
        assertNull(partition.recallAttempt("att"));
    }

    @Test
    void messagePastMaxReceiveCountIsHandedBackForTheDeadLetterQueue() {
        Partition standard = new Partition(clock, () -> 345_600_000L);
        standard.send(new MessageRecord("m", "poison", Map.of(), Map.of(), clock.millis(), "s", null, null, null), 0);
        for (int i = 1; i <= 2; i++) {
            ReceiveOutcome o = standard.receive(10, 1_000, 2, 30_000);
            assertEquals(1, o.delivered().size(), "receive " + i);
            clock.advanceSeconds(1);
        }
        ReceiveOutcome third = standard.receive(10, 1_000, 2, 30_000);
        assertTrue(third.delivered().isEmpty(), "received twice already: not delivered again");
        assertEquals(1, third.toMove().size());
        Delivery moving = third.toMove().get(0);
        assertEquals(2, moving.receiveCount(), "a move is not a receive");
        clock.advanceSeconds(5);
        assertTrue(standard.receive(10, 1_000, 2, 30_000).delivered().isEmpty(), "hidden while it moves");
        assertTrue(standard.delete(moving.messageId(), moving.receiptToken()), "the move deletes the original");
        assertEquals(0, standard.size());
    }

    @Test
    void failedMoveBringsTheMessageBackToBeMovedAgain() {
        Partition standard = new Partition(clock, () -> 345_600_000L);
        standard.send(new MessageRecord("m", "poison", Map.of(), Map.of(), clock.millis(), "s", null, null, null), 0);
        standard.receive(1, 0, 1, 30_000);
        assertEquals(1, standard.receive(1, 1_000, 1, 30_000).toMove().size());
        clock.advanceSeconds(30);
        assertEquals(1, standard.receive(1, 1_000, 1, 30_000).toMove().size(), "nothing lost");
    }

    @Test
    void movedCopyKeepsIdBodyAttributesAndSentTime() {
        Delivery d = new Delivery(
                "id",
                1,
                "b",
                Md5.ofBody("b"),
                Map.of("k", MessageAttributeValue.ofString("String", "v")),
                Map.of(),
                1234,
                "s",
                3,
                1000,
                "g",
                "dd",
                "seq",
                null);
        MessageRecord copy = MessageRecord.movedCopy(d, "arn:src", 3);
        Delivery out = copy.deliver();
        assertEquals("id", out.messageId());
        assertEquals(1234, out.sentTimestamp());
        assertEquals(d.attributes(), out.attributes());
        assertEquals("arn:src", out.deadLetterSourceArn());
        assertEquals(3, out.receiveCount());
    }

    @Test
    void rebuiltPartitionKeepsGroupOrderLocksAndDedup() {
        partition.send(message("A", "a1"), 0, "k1");
        partition.send(message("A", "a2"), 0, "k2");
        assertEquals(List.of("a1"), bodies(partition.receive(1, 10_000)));
        List<StoredMessage> stored = new ArrayList<>();
        Map<String, DedupEntry> dedup = new HashMap<>();
        for (PartitionChange c : partition.drainChanges()) {
            if (c instanceof PartitionChange.MessageStored m) {
                stored.removeIf(s -> s.messageId().equals(m.messageId()));
                stored.add(m.record().snapshot());
            } else if (c instanceof PartitionChange.DedupStored d) {
                dedup.put(d.key(), d.entry());
            }
        }
        Collections.reverse(stored);
        Partition rebuilt = new Partition(clock, () -> 345_600_000L, true, 3, new SequenceClock());
        rebuilt.restore(new PartitionSnapshot(stored, dedup, Map.of()));
        assertTrue(rebuilt.receive(10, 10_000).isEmpty(), "group A is still locked by the in-flight a1");
        assertTrue(rebuilt.send(message("A", "dup"), 0, "k2").duplicate(), "dedup survives the rebuild");
        clock.advanceSeconds(10);
        assertEquals(List.of("a1", "a2"), bodies(rebuilt.receive(10, 10_000)), "a1 back after its timeout, in order");
    }

    @Test
    void eraseRemovesMessagesDedupRecordsAndAttemptsFromStorageToo() {
        partition.send(message("A", "a1"), 0, "k1");
        partition.send(message("A", "a2"), 0, "k2");
        Delivery d = partition.receive(1, 60_000).get(0);
        partition.rememberAttempt("att", List.of(new AttemptRef(3, d.messageId(), d.receiptToken())));
        partition.drainChanges(); // committed before the queue is deleted
        MessageRecord uncommitted = message("B", "b1");
        partition.send(uncommitted, 0, "k3"); // not committed yet
        partition.erase();
        Set<String> removedMessages = new HashSet<>();
        Set<String> removedDedup = new HashSet<>();
        Set<String> removedAttempts = new HashSet<>();
        List<String> uncommittedChanges = new ArrayList<>();
        List<PartitionChange> changes = partition.drainChanges();
        for (PartitionChange c : changes) {
            if (c instanceof PartitionChange.MessageRemoved m) {
                removedMessages.add(m.messageId());
            } else if (c instanceof PartitionChange.DedupRemoved r) {
                removedDedup.add(r.key());
            } else if (c instanceof PartitionChange.AttemptRemoved r) {
                removedAttempts.add(r.attemptId());
            }
            if (c instanceof PartitionChange.MessageStored m && m.messageId().equals(uncommitted.messageId)) {
                uncommittedChanges.add("stored");
            } else if (c instanceof PartitionChange.MessageRemoved m
                    && m.messageId().equals(uncommitted.messageId)) {
                uncommittedChanges.add("removed");
            }
        }
        assertEquals(3, removedMessages.size(), "every message, in flight or not, committed or not: " + changes);
        assertEquals(Set.of("k1", "k2", "k3"), removedDedup);
        assertEquals(Set.of("att"), removedAttempts);
        assertEquals(List.of("stored", "removed"), uncommittedChanges, "the uncommitted send is removed after it");
        assertEquals(0, partition.visibleCount() + partition.inFlightCount() + partition.delayedCount());
        assertTrue(partition.receive(10, 10_000).isEmpty());
        assertFalse(partition.send(message("A", "again"), 0, "k1").duplicate(), "no dedup record survives");
    }

    @Test
    void movePacerHoldsTheRate() {
        MovePacer pacer = new MovePacer(clock, 2);
        assertEquals(1, pacer.take(10), "one permit to start with");
        assertEquals(0, pacer.take(10));
        assertEquals(500, pacer.millisUntilNext());
        clock.advanceMillis(500);
        assertEquals(1, pacer.take(10));
        clock.advanceSeconds(60);
        assertEquals(2, pacer.take(10), "no burst beyond one second's worth after a pause");
        MovePacer fast = new MovePacer(clock, 500);
        clock.advanceSeconds(1);
        assertEquals(10, fast.take(10));
    }
}
