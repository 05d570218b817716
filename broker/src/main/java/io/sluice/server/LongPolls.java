package io.sluice.server;

import io.sluice.partition.VisibilityListener;
import java.util.Deque;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.function.Consumer;

/**
 * The long polls parked on this node, by queue, longest-parked first. A partition's announcement
 * of newly visible messages wakes one waiter: the longest-parked that is not already woken or
 * claiming, else the longest-parked. Waking every waiter for every message made each message cost
 * one claim per parked poll (most of them forwarded to another node and coming back empty). A
 * waiter that leaves with a wake it did not use, or that filled its receive from a partition that
 * may hold more, announces that partition again, so the next waiter takes over. Each waiter hops
 * back to its own event loop first.
 */
final class LongPolls implements VisibilityListener {
    /** A parked receive; {@link #wake(int)} and {@link #busy()} may be called from any thread. */
    interface Waiter {
        /**
         * Something may be visible now: in {@code partition}, or anywhere in the queue when it is
         * {@link VisibilityListener#ANY_PARTITION}.
         */
        void wake(int partition);

        /** Already woken and not yet claiming, or claiming: another wake would only queue behind. */
        boolean busy();
    }

    private final ConcurrentHashMap<String, Deque<Waiter>> waiting = new ConcurrentHashMap<>();
    private volatile Consumer<String> onFirstWait = q -> {};

    /** Told the queue's name whenever a receive parks, so wakes from other nodes reach this one. */
    void onFirstWait(Consumer<String> hook) {
        this.onFirstWait = hook;
    }

    void park(String queueName, Waiter w) {
        waiting.computeIfAbsent(queueName, k -> new ConcurrentLinkedDeque<>()).addLast(w);
        onFirstWait.accept(queueName);
    }

    /** How many receives are parked on this node now. */
    int parked() {
        int n = 0;
        for (Deque<Waiter> queue : waiting.values()) {
            n += queue.size();
        }
        return n;
    }

    void unpark(String queueName, Waiter w) {
        waiting.computeIfPresent(queueName, (k, queue) -> {
            queue.remove(w);
            return queue.isEmpty() ? null : queue;
        });
    }

    /**
     * One waiter of the queue asks {@code partition}; {@link #ANY_PARTITION} (a re-check after a
     * subscription or a move) wakes every waiter to look at all partitions.
     */
    @Override
    public void onVisible(String queueName, int partition) {
        Deque<Waiter> queue = waiting.get(queueName);
        if (queue == null) {
            return;
        }
        if (partition == ANY_PARTITION) {
            queue.forEach(w -> w.wake(ANY_PARTITION));
            return;
        }
        Waiter chosen = null;
        for (Waiter w : queue) {
            if (!w.busy()) {
                chosen = w;
                break;
            }
            if (chosen == null) {
                chosen = w;
            }
        }
        if (chosen != null) {
            chosen.wake(partition);
        }
    }

    /** Wakes every waiter of a queue to look at all its partitions (the queue is deleted or moved). */
    void wakeAll(String queueName) {
        onVisible(queueName, ANY_PARTITION);
    }
}
