package io.sluice.it;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;

/** How many threads the JVM started while something ran: a count, not a time, so it cannot be flaky. */
public final class StartedThreads {
    private StartedThreads() {}

    /** Runs {@code warmUp} once (threads started lazily are not counted), then {@code traffic} {@code rounds} times. */
    public static long during(Runnable warmUp, Runnable traffic, int rounds) {
        warmUp.run();
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        long before = threads.getTotalStartedThreadCount();
        for (int round = 0; round < rounds; round++) {
            traffic.run();
        }
        return threads.getTotalStartedThreadCount() - before;
    }
}
