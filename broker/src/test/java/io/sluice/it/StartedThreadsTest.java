package io.sluice.it;

import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The count {@link ThreadCountTest} and the cluster's thread test rely on sees a thread per call. */
class StartedThreadsTest {
    @Test
    void aThreadPerCallIsFarAboveFlat() {
        Runnable threadPerCall = () -> {
            for (int i = 0; i < 500; i++) {
                Thread t = new Thread(() -> {}, "per-call-" + i);
                t.start();
                try {
                    t.join();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException(e);
                }
            }
        };
        StartedThreads.Count count = StartedThreads.during(() -> {}, threadPerCall, 4);
        assertTrue(count.started() >= 2000, count.toString());
        assertTrue(count.started() > 10 * StartedThreads.FLAT, count.toString());
    }
}
