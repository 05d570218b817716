package io.sluice.server;

import io.sluice.partition.VisibilityListener;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * The long polls parked on this node, by queue. A partition with newly visible messages wakes
 * the queue's waiters, which then claim; each waiter hops back to its own event loop first.
 */
final class LongPolls implements VisibilityListener {
    /** A parked receive; {@link #wake(int)} may be called from any thread. */
    interface Waiter {
        /**
         * Something may be visible now: in {@code partition}, or anywhere in the queue when it is
         * {@link VisibilityListener#ANY_PARTITION}.
         */
        void wake(int partition);
    }

    private final ConcurrentHashMap<String, Set<Waiter>> waiting = new ConcurrentHashMap<>();
    private volatile Consumer<String> onFirstWait = q -> {};

    /** Told the queue's name whenever a receive parks, so wakes from other nodes reach this one. */
    void onFirstWait(Consumer<String> hook) {
        this.onFirstWait = hook;
    }

    void park(String queueName, Waiter w) {
        waiting.computeIfAbsent(queueName, k -> ConcurrentHashMap.newKeySet()).add(w);
        onFirstWait.accept(queueName);
    }

    /** How many receives are parked on this node now. */
    int parked() {
        int n = 0;
        for (Set<Waiter> set : waiting.values()) {
            n += set.size();
        }
        return n;
    }

    void unpark(String queueName, Waiter w) {
        waiting.computeIfPresent(queueName, (k, set) -> {
            set.remove(w);
            return set.isEmpty() ? null : set;
        });
    }

    /** Wakes every waiter of the queue; each asks that partition only ({@link #ANY_PARTITION}: all). */
    @Override
    public void onVisible(String queueName, int partition) {
        Set<Waiter> set = waiting.get(queueName);
        if (set != null) {
            for (Waiter w : set) {
                w.wake(partition);
            }
        }
    }

    /** Wakes every waiter of a queue to look at all its partitions (the queue is deleted or moved). */
    void wakeAll(String queueName) {
        onVisible(queueName, ANY_PARTITION);
    }
}
