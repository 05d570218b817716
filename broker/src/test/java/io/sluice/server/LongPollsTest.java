package io.sluice.server;

import static io.sluice.partition.VisibilityListener.ANY_PARTITION;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Which parked receives an announcement wakes; the waiters here only record their wakes. */
class LongPollsTest {

    private static final class Recorder implements LongPolls.Waiter {
        final List<Integer> wakes = new ArrayList<>();
        boolean busy;

        @Override
        public void wake(int partition) {
            wakes.add(partition);
            busy = true; // as a real waiter is, until it has taken the wake
        }

        @Override
        public boolean busy() {
            return busy;
        }
    }

    private final LongPolls polls = new LongPolls();

    @Test
    void oneAnnouncementWakesTheLongestParkedIdleWaiterOnly() {
        Recorder first = new Recorder();
        Recorder second = new Recorder();
        Recorder third = new Recorder();
        polls.park("q", first);
        polls.park("q", second);
        polls.park("q", third);

        polls.onVisible("q", 3);
        assertEquals(List.of(3), first.wakes);
        assertEquals(List.of(), second.wakes);

        // The first is busy with its wake: the next announcement goes to the next waiter.
        polls.onVisible("q", 5);
        assertEquals(List.of(3), first.wakes);
        assertEquals(List.of(5), second.wakes);
        assertEquals(List.of(), third.wakes);
    }

    @Test
    void whenEveryWaiterIsBusyTheLongestParkedGetsTheWake() {
        Recorder first = new Recorder();
        Recorder second = new Recorder();
        first.busy = true;
        second.busy = true;
        polls.park("q", first);
        polls.park("q", second);

        polls.onVisible("q", 1);

        assertEquals(List.of(1), first.wakes);
        assertEquals(List.of(), second.wakes);
    }

    @Test
    void aLookAtAllPartitionsWakesEveryWaiterOfThatQueueOnly() {
        Recorder a = new Recorder();
        Recorder b = new Recorder();
        Recorder other = new Recorder();
        polls.park("q", a);
        polls.park("q", b);
        polls.park("other", other);

        polls.wakeAll("q");

        assertEquals(List.of(ANY_PARTITION), a.wakes);
        assertEquals(List.of(ANY_PARTITION), b.wakes);
        assertEquals(List.of(), other.wakes);
    }

    @Test
    void anUnparkedWaiterIsNotWokenAndAQueueWithoutWaitersIsIgnored() {
        Recorder gone = new Recorder();
        Recorder staying = new Recorder();
        polls.park("q", gone);
        polls.park("q", staying);
        polls.unpark("q", gone);

        polls.onVisible("q", 2);
        polls.onVisible("nobody-waits", 2);

        assertEquals(List.of(), gone.wakes);
        assertEquals(List.of(2), staying.wakes);
        assertEquals(1, polls.parked());
    }
}
