package io.sluice.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PartitionTest {
    private final FakeClock clock = new FakeClock();
    private long retentionMillis = 345_600_000L;
    private final Partition partition = new Partition(clock, () -> retentionMillis);
    private int sequence;

    private MessageRecord message(String body) {
        return new MessageRecord(
                "m" + (++sequence), body, Map.of(), Map.of(), clock.millis(), "sender", null, null, null);
    }

    private Delivery receiveOne(long visibilityMillis) {
        List<Delivery> got = partition.receive(1, visibilityMillis);
        assertEquals(1, got.size(), "expected one message");
        return got.get(0);
    }

    @Test
    void sentMessageIsReceivedOnceThenInvisibleForTheTimeout() {
        partition.send(message("a"), 0);
        Delivery d = receiveOne(30_000);
        assertEquals("a", d.body());
        assertEquals(1, d.receiveCount());
        assertEquals(clock.millis(), d.firstReceiveTimestamp());
        assertTrue(partition.receive(10, 30_000).isEmpty(), "in flight, not visible");
        assertEquals(0, partition.visibleCount());
        assertEquals(1, partition.inFlightCount());

        clock.advanceSeconds(29.999);
        assertTrue(partition.receive(10, 30_000).isEmpty(), "still in flight just before the timeout");
        clock.advanceMillis(1);
        Delivery again = receiveOne(30_000);
        assertEquals(2, again.receiveCount());
        assertEquals(d.firstReceiveTimestamp(), again.firstReceiveTimestamp(), "first receive is kept");
        assertNotEquals(d.receiptToken(), again.receiptToken(), "new receipt handle per receive");
    }

    @Test
    void aSendAppliedAgainToARebuiltPartitionStartsFresh() {
        // A send whose commit wrote nothing runs again at the partition's owner, rebuilt from storage,
        // with the same record: what the thrown-away memory did to it (received, in flight, a slot in
        // that memory's deadline heap) must not come along.
        MessageRecord sent = message("e");
        partition.send(sent, 0);
        receiveOne(30_000);

        Partition rebuilt = new Partition(clock, () -> retentionMillis);
        rebuilt.send(sent, 0);
        assertEquals(1, rebuilt.visibleCount());
        List<Delivery> got = rebuilt.receive(1, 30_000);
        assertEquals(1, got.size(), "visible in the rebuilt partition");
        assertEquals(1, got.get(0).receiveCount(), "received once there");
        clock.advanceSeconds(30);
        assertEquals(1, rebuilt.receive(1, 30_000).size(), "visible again after its visibility timeout");
    }

    @Test
    void receiveReturnsAtMostMaxOldestFirst() {
        for (int i = 0; i < 5; i++) {
            partition.send(message("b" + i), 0);
        }
        List<Delivery> got = partition.receive(3, 30_000);
        assertEquals(List.of("b0", "b1", "b2"), got.stream().map(Delivery::body).toList());
        assertEquals(2, partition.visibleCount());
    }

    @Test
    void changeVisibilityResetsFromTheCallInsteadOfAdding() {
        // The SQS example: queue timeout 60 s, at 15 s the consumer sets 10 s: visible at 25 s.
        partition.send(message("c"), 0);
        Delivery d = receiveOne(60_000);
        clock.advanceSeconds(15);
        partition.changeVisibility(d.messageId(), d.receiptToken(), 10_000, "h");
        clock.advanceSeconds(9.999);
        assertTrue(partition.receive(1, 60_000).isEmpty());
        clock.advanceMillis(1);
        receiveOne(60_000);
    }

    @Test
    void changeVisibilityToZeroReleasesAtOnce() {
        partition.send(message("d"), 0);
        Delivery d = receiveOne(60_000);
        partition.takeNewlyVisible();
        partition.changeVisibility(d.messageId(), d.receiptToken(), 0, "h");
        assertEquals(1, partition.visibleCount());
        assertEquals(1, partition.takeNewlyVisible(), "waiters are told");
        receiveOne(60_000);
    }

    @Test
    void twelveHourCapCountsFromTheReceive() {
        partition.send(message("e"), 0);
        Delivery d = receiveOne(30_000);
        clock.advanceSeconds(1);
        SqsException refused = assertThrows(
                SqsException.class, () -> partition.changeVisibility(d.messageId(), d.receiptToken(), 43_200_000, "h"));
        assertEquals(ErrorCode.INVALID_PARAMETER_VALUE, refused.code());
        partition.changeVisibility(d.messageId(), d.receiptToken(), 43_195_000, "h");
        // Extending again later does not reset the cap.
        clock.advanceSeconds(3600);
        assertThrows(
                SqsException.class,
                () -> partition.changeVisibility(d.messageId(), d.receiptToken(), 43_200_000 - 3_600_000, "h"));
        partition.changeVisibility(d.messageId(), d.receiptToken(), 43_200_000 - 3_601_000, "h");
    }

    @Test
    void changeVisibilityWithTheLatestHandleAfterTheTimeoutTakesTheMessageBackInFlight() {
        partition.send(message("f"), 0);
        Delivery d = receiveOne(1_000);
        clock.advanceSeconds(2);
        partition.advance(clock.millis());
        assertEquals(1, partition.visibleCount(), "visible again, not yet received again");
        partition.changeVisibility(d.messageId(), d.receiptToken(), 0, "h");
        assertEquals(1, partition.visibleCount(), "0 leaves it visible");
        partition.changeVisibility(d.messageId(), d.receiptToken(), 5_000, "h");
        assertEquals(0, partition.visibleCount());
        assertEquals(1, partition.inFlightCount());
        assertTrue(partition.receive(10, 30_000).isEmpty(), "invisible for the new timeout");
        clock.advanceSeconds(5);
        Delivery again = receiveOne(30_000);
        assertEquals(2, again.receiveCount(), "a change is not a receive");
        // the 12-hour cap still counts from the receive that handle came from
        clock.advanceSeconds(31);
        partition.advance(clock.millis());
        assertThrows(
                SqsException.class,
                () -> partition.changeVisibility(again.messageId(), again.receiptToken(), 43_200_000, "h"));
        // a handle of an earlier receive stays refused
        assertEquals(
                ErrorCode.INVALID_PARAMETER_VALUE,
                assertThrows(
                                SqsException.class,
                                () -> partition.changeVisibility(d.messageId(), d.receiptToken(), 5_000, "h"))
                        .code());
    }

    @Test
    void changeVisibilityWithStaleOrUnknownHandleIsInvalid() {
        partition.send(message("g"), 0);
        Delivery first = receiveOne(1_000);
        clock.advanceSeconds(2);
        receiveOne(30_000);
        SqsException stale = assertThrows(
                SqsException.class,
                () -> partition.changeVisibility(first.messageId(), first.receiptToken(), 5_000, "h"));
        assertEquals(ErrorCode.INVALID_PARAMETER_VALUE, stale.code());
        SqsException unknown =
                assertThrows(SqsException.class, () -> partition.changeVisibility("nope", 1, 5_000, "h"));
        assertEquals(ErrorCode.INVALID_PARAMETER_VALUE, unknown.code());
    }

    @Test
    void deleteWithCurrentHandleRemovesTheMessage() {
        partition.send(message("h"), 0);
        Delivery d = receiveOne(30_000);
        assertTrue(partition.delete(d.messageId(), d.receiptToken()));
        assertEquals(0, partition.size());
        assertEquals(0, partition.inFlightCount());
        assertFalse(partition.delete(d.messageId(), d.receiptToken()), "second delete succeeds, deletes nothing");
    }

    @Test
    void deletedInFlightMessagesAreNotKeptUntilTheirVisibilityTimeoutEnds() {
        for (int i = 0; i < 1_000; i++) {
            partition.send(message("x" + i), 0);
        }
        List<Delivery> got = new ArrayList<>();
        while (got.size() < 1_000) {
            got.addAll(partition.receive(10, 43_200_000));
        }
        assertEquals(1_000, partition.pendingDeadlines(), "one visibility timeout per message in flight");
        got.forEach(d -> assertTrue(partition.delete(d.messageId(), d.receiptToken())));
        assertEquals(0, partition.pendingDeadlines(), "nothing of a deleted message waits for its 12 hours");
        assertEquals(0, partition.size());
    }

    @Test
    void messagesThatExpireUnreceivedLeaveTheReadySet() {
        retentionMillis = 60_000;
        for (int i = 0; i < 10_000; i++) {
            partition.send(message("old" + i), 0);
        }
        assertEquals(10_000, partition.readySetEntries());
        clock.advanceSeconds(61);
        partition.advance(clock.millis());
        assertEquals(0, partition.size());
        assertEquals(0, partition.readySetEntries(), "expired messages must not stay reachable until a receive");
        partition.send(message("new"), 0);
        assertEquals("new", receiveOne(30_000).body());
    }

    @Test
    void changingAVisibilityTimeoutAgainAndAgainKeepsOneDeadline() {
        partition.send(message("v"), 0);
        Delivery d = receiveOne(30_000);
        for (int i = 1; i <= 100; i++) {
            partition.changeVisibility(d.messageId(), d.receiptToken(), 30_000 + i, "h");
        }
        assertEquals(1, partition.pendingDeadlines());
        clock.advanceMillis(30_099);
        assertTrue(partition.receive(1, 30_000).isEmpty(), "the last timeout set counts, not an earlier one");
        clock.advanceMillis(1);
        receiveOne(30_000);
    }

    @Test
    void deleteWithOutdatedHandleDeletesNothing() {
        partition.send(message("i"), 0);
        Delivery first = receiveOne(1_000);
        clock.advanceSeconds(2);
        Delivery second = receiveOne(30_000);
        assertFalse(partition.delete(first.messageId(), first.receiptToken()));
        assertEquals(1, partition.size());
        assertTrue(partition.delete(second.messageId(), second.receiptToken()));
    }

    @Test
    void deleteAfterVisibilityExpiredStillWorksWhileNobodyReceivedItAgain() {
        partition.send(message("j"), 0);
        Delivery d = receiveOne(1_000);
        clock.advanceSeconds(5);
        assertTrue(partition.delete(d.messageId(), d.receiptToken()));
        assertTrue(partition.receive(10, 1_000).isEmpty(), "deleted while visible is skipped");
        assertEquals(0, partition.visibleCount());
    }

    @Test
    void delayedMessageBecomesVisibleWhenTheDelayEnds() {
        partition.send(message("k"), 5_000);
        assertEquals(1, partition.delayedCount());
        assertEquals(0, partition.takeNewlyVisible());
        assertTrue(partition.receive(1, 30_000).isEmpty());
        clock.advanceSeconds(4.999);
        partition.advance(clock.millis());
        assertEquals(1, partition.delayedCount());
        clock.advanceMillis(1);
        partition.advance(clock.millis());
        assertEquals(0, partition.delayedCount());
        assertEquals(1, partition.visibleCount());
        assertEquals(1, partition.takeNewlyVisible());
        receiveOne(30_000);
    }

    @Test
    void retentionExpiresMessagesCountedFromTheSend() {
        retentionMillis = 60_000;
        partition.send(message("l"), 0);
        clock.advanceSeconds(30);
        partition.send(message("m"), 0);
        Delivery d = receiveOne(5_000);
        assertEquals("l", d.body());
        clock.advanceSeconds(30);
        partition.advance(clock.millis());
        assertEquals(1, partition.size(), "the first message expired while in flight");
        assertEquals(0, partition.inFlightCount());
        List<PartitionChange> changes = partition.drainChanges();
        assertInstanceOf(PartitionChange.MessageRemoved.class, changes.get(changes.size() - 1));
        clock.advanceSeconds(30);
        assertTrue(partition.receive(10, 5_000).isEmpty(), "the second expired too");
        assertEquals(0, partition.size());
    }

    @Test
    void shorterRetentionAppliesToStoredMessages() {
        partition.send(message("n"), 0);
        clock.advanceSeconds(120);
        retentionMillis = 60_000;
        partition.advance(clock.millis());
        assertEquals(0, partition.size());
        assertEquals(0, partition.visibleCount());
    }

    @Test
    void purgeRemovesVisibleInFlightAndDelayed() {
        partition.send(message("o"), 0);
        partition.send(message("p"), 0);
        partition.send(message("q"), 60_000);
        receiveOne(30_000);
        partition.purge();
        assertEquals(0, partition.size());
        assertEquals(0, partition.visibleCount() + partition.inFlightCount() + partition.delayedCount());
        clock.advanceSeconds(120);
        assertTrue(partition.receive(10, 30_000).isEmpty());
    }

    @Test
    void everyChangeIsHandedToTheCommitBatchButExpiryOfVisibilityIsNot() {
        partition.send(message("r"), 0);
        Delivery d = receiveOne(1_000);
        List<PartitionChange> changes = partition.drainChanges();
        assertEquals(2, changes.size());
        assertTrue(changes.stream().allMatch(c -> c instanceof PartitionChange.MessageStored));
        clock.advanceSeconds(2);
        partition.advance(clock.millis());
        assertFalse(partition.hasChanges(), "the record already says when it becomes visible");
        Delivery again = receiveOne(1_000);
        partition.delete(again.messageId(), again.receiptToken());
        assertInstanceOf(
                PartitionChange.MessageRemoved.class, partition.drainChanges().get(1));
        assertTrue(d.receiptToken() != again.receiptToken());
    }

    @Test
    void nextDeadlineIsTheEarliestDelayVisibilityOrRetentionEnd() {
        assertEquals(Long.MAX_VALUE, partition.nextDeadline(), "nothing stored: nothing to wake for");
        long t0 = clock.millis();
        retentionMillis = 60_000;
        partition.send(message("delayed"), 5_000);
        assertEquals(t0 + 5_000, partition.nextDeadline(), "the delay ends first");
        assertEquals(t0 + 5_000, partition.takeAddedDeadline(), "the send told the owner of it");
        assertEquals(Long.MAX_VALUE, partition.takeAddedDeadline(), "told once");
        partition.send(message("later"), 0);
        assertEquals(Long.MAX_VALUE, partition.takeAddedDeadline(), "a later retention end moves nothing earlier");

        clock.advanceMillis(5_000);
        partition.advance(clock.millis());
        assertEquals(t0 + 60_000, partition.nextDeadline(), "visible: only its retention is left");

        receiveOne(10_000);
        assertEquals(t0 + 15_000, partition.nextDeadline(), "in flight: the visibility timeout ends first");
        assertEquals(t0 + 15_000, partition.takeAddedDeadline(), "the receive told the owner of it");

        retentionMillis = 8_000;
        assertEquals(t0 + 8_000, partition.nextDeadline(), "a shorter retention counts at once");
        clock.advanceMillis(3_000);
        partition.advance(clock.millis());
        assertEquals(0, partition.size(), "expired at the deadline it reported");
        assertTrue(partition.nextDeadline() >= t0 + 15_000, "only a superseded deadline may remain");
    }
}
