package io.sluice.it;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.Arrays;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * How many threads the JVM started while something ran: a count, not a time. The count is
 * JVM-wide, so it includes what runs on its own schedule (Hazelcast's cached pool, the SDK's
 * connection reaper, nodes of an earlier test class winding down): a run of several test classes
 * once saw 10 such starts during 2,000 sends. A thread per request or per callback starts one for
 * each of them, so {@link #FLAT} sits far below that and far above the background.
 */
public final class StartedThreads {
    /** Fewer starts than this during a few thousand requests is flat. */
    public static final long FLAT = 50;

    private StartedThreads() {}

    /** The count, and the names of the threads started in the window that are still alive at its end. */
    public record Count(long started, Set<String> stillAlive) {
        @Override
        public String toString() {
            return started + " threads started (alive at the end: " + stillAlive + ")";
        }
    }

    /** Runs {@code warmUp} once (threads started lazily are not counted), then {@code traffic} {@code rounds} times. */
    public static Count during(Runnable warmUp, Runnable traffic, int rounds) {
        warmUp.run();
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        Set<Long> aliveBefore = Arrays.stream(threads.getAllThreadIds()).boxed().collect(Collectors.toSet());
        long before = threads.getTotalStartedThreadCount();
        for (int round = 0; round < rounds; round++) {
            traffic.run();
        }
        long started = threads.getTotalStartedThreadCount() - before;
        long[] newIds = Arrays.stream(threads.getAllThreadIds())
                .filter(id -> !aliveBefore.contains(id))
                .toArray();
        Set<String> names = Arrays.stream(threads.getThreadInfo(newIds))
                .filter(Objects::nonNull)
                .map(ThreadInfo::getThreadName)
                .collect(Collectors.toCollection(TreeSet::new));
        return new Count(started, names);
    }
}
