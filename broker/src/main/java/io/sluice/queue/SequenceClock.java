package io.sluice.queue;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The source of FIFO sequence numbers for every partition of a node: a hybrid clock, at least
 * the current time in microseconds-of-millis and always above the last value it gave, so numbers
 * increase across the queue's partitions and stay close to time order. Shared by the partition
 * loops, hence atomic: one compare-and-set per FIFO send.
 */
public final class SequenceClock {
    private final AtomicLong last = new AtomicLong();

    public long next(long nowMillis) {
        long floor = nowMillis * 1000;
        return last.accumulateAndGet(floor, (prev, f) -> Math.max(prev + 1, f));
    }
}
