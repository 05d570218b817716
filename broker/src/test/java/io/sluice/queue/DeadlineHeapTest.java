package io.sluice.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

class DeadlineHeapTest {
    private final DeadlineHeap heap = new DeadlineHeap();
    private int ids;

    private MessageRecord record() {
        return new MessageRecord("m" + (++ids), "b", Map.of(), Map.of(), 0, "sender", null, null, null);
    }

    @Test
    void pollsInDeadlineOrderAndEmptiesToNull() {
        MessageRecord late = record();
        MessageRecord early = record();
        MessageRecord middle = record();
        heap.schedule(late, 300);
        heap.schedule(early, 100);
        heap.schedule(middle, 200);
        assertSame(early, heap.poll());
        assertSame(middle, heap.poll());
        assertSame(late, heap.poll());
        assertNull(heap.poll());
        assertNull(heap.peek());
        assertEquals(-1, late.deadlineSlot, "a polled record knows it is out");
    }

    @Test
    void reschedulingMovesTheRecordInsteadOfAddingIt() {
        MessageRecord a = record();
        MessageRecord b = record();
        heap.schedule(a, 100);
        heap.schedule(b, 200);
        heap.schedule(a, 300);
        assertEquals(2, heap.size());
        assertSame(b, heap.peek());
        heap.schedule(a, 50);
        assertSame(a, heap.peek());
        assertEquals(50, a.visibleAt);
    }

    @Test
    void removeTakesTheRecordOutAtOnceAndIgnoresOneThatIsNotIn() {
        MessageRecord a = record();
        MessageRecord b = record();
        heap.schedule(a, 100);
        heap.schedule(b, 200);
        heap.remove(a);
        heap.remove(a);
        assertEquals(1, heap.size());
        assertSame(b, heap.poll());
        heap.remove(record());
        assertEquals(0, heap.size());
    }

    @Test
    void clearForgetsEveryRecord() {
        List<MessageRecord> all = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            MessageRecord r = record();
            all.add(r);
            heap.schedule(r, i);
        }
        heap.clear();
        assertEquals(0, heap.size());
        all.forEach(r -> assertEquals(-1, r.deadlineSlot));
    }

    /** Random schedules, reschedules, removals and polls agree with a plain map of deadlines. */
    @Test
    void agreesWithAMapOfDeadlinesUnderRandomOperations() {
        Random random = new Random(20261202L);
        Map<MessageRecord, Long> expected = new HashMap<>();
        List<MessageRecord> known = new ArrayList<>();
        for (int step = 0; step < 200_000; step++) {
            int op = random.nextInt(10);
            if (op < 4 || known.isEmpty()) {
                MessageRecord r = record();
                known.add(r);
                long at = random.nextInt(1_000);
                heap.schedule(r, at);
                expected.put(r, at);
            } else if (op < 6) {
                MessageRecord r = known.get(random.nextInt(known.size()));
                long at = random.nextInt(1_000);
                heap.schedule(r, at);
                expected.put(r, at);
            } else if (op < 8) {
                MessageRecord r = known.remove(random.nextInt(known.size()));
                heap.remove(r);
                expected.remove(r);
            } else {
                MessageRecord first = heap.poll();
                if (expected.isEmpty()) {
                    assertNull(first);
                } else {
                    long min = expected.values().stream()
                            .mapToLong(Long::longValue)
                            .min()
                            .orElseThrow();
                    assertEquals(min, first.visibleAt, "step " + step + ": the earliest deadline comes first");
                    assertEquals(min, expected.remove(first), "step " + step + ": a pending record");
                    known.remove(first);
                }
            }
            assertEquals(expected.size(), heap.size(), "step " + step);
        }
        long last = Long.MIN_VALUE;
        while (heap.size() > 0) {
            MessageRecord r = heap.poll();
            assertEquals(expected.remove(r), r.visibleAt);
            assertTrue(r.visibleAt >= last, "drained in order");
            last = r.visibleAt;
        }
        assertEquals(0, expected.size());
    }
}
