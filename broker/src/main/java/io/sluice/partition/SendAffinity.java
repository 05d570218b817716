package io.sluice.partition;

import io.vertx.core.Future;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntFunction;

/**
 * Which partition a standard queue's send goes to. Any will do (standard queues promise no
 * order), but a partition commits what reached it while its previous commit was in flight as one
 * replicated commit, so sends spread thinly over every partition make many small commits. Each
 * thread therefore keeps sending to the partition of its previous send while one of its sends to
 * the queue is still in flight, for at most {@link #BLOCK} sends; otherwise it picks afresh. A
 * client sending one message at a time gets a fresh pick each time (nothing is in flight), so its
 * messages spread over the partitions as short polls expect; under concurrent load they go in
 * blocks, which spread as evenly over time. Three nodes, wrk SendMessage through one node:
 * when every send is forwarded, 9.7-11.0 instead of 7.6-8.3 thousand a second at 158-178
 * instead of 224-244 µs of the three nodes' CPU per send; when the node owns partitions of the
 * queue, 21.0-22.5 instead of 17.9-19.8 thousand (alternating, load-tests/README.md, stop 39).
 *
 * <p>A fresh pick is a random one of the partitions this node owns, so the message is stored
 * without a hop to another node (its backup still goes to one); a random one of all when this
 * node owns none. Not narrowed to the partitions of the calling thread's loop: that put one
 * connection's messages in 2 of 8 partitions, so a short poll's sample of half the partitions
 * found all or none of them. A kept partition is given up as soon as its ownership is not what it
 * was when it was picked (it moved here or away).
 */
public final class SendAffinity {
    /** Sends kept on one partition before a fresh pick, however many are in flight, where commits are replicated. */
    public static final int BLOCK = 32;
    /**
     * Where commits end in memory (a node alone): a fresh pick for every send. Keeping a partition
     * saves nothing there and concentrates a loop's sends on one partition's loop: one node, wrk
     * SendMessage, 41.0 against 43.4 thousand per second (medians of four, alternating).
     */
    public static final int NO_BLOCK = 1;
    /** Queues remembered per thread; a thread that saw more (queues come and go) starts over. */
    static final int MAX_QUEUES = 1024;

    private final Ownership ownership;
    private final int block;
    private final ThreadLocal<Map<String, Pick>> picks = ThreadLocal.withInitial(HashMap::new);

    /** @param block sends kept on one partition: {@link #BLOCK}, or {@link #NO_BLOCK} for a fresh pick each time */
    public SendAffinity(Ownership ownership, int block) {
        this.ownership = ownership;
        this.block = block;
    }

    /**
     * Runs one send of the calling thread to the queue ({@code run} applied to the partition
     * picked) and counts it in flight until its future completes. Without blocks every send is a
     * fresh pick and nothing is tracked.
     */
    public <R> Future<R> send(String queueName, int partitions, IntFunction<Future<R>> run) {
        if (block <= NO_BLOCK) {
            return run.apply(fresh(queueName, partitions));
        }
        Pick pick = pick(queueName, partitions);
        pick.inFlight.incrementAndGet();
        return run.apply(pick.partition).onComplete(ar -> pick.inFlight.decrementAndGet());
    }

    private Pick pick(String queueName, int partitions) {
        Map<String, Pick> mine = picks.get();
        Pick pick = mine.get(queueName);
        if (pick == null) {
            if (mine.size() >= MAX_QUEUES) {
                mine.clear();
            }
            pick = new Pick();
            mine.put(queueName, pick);
        }
        if (pick.inFlight.get() > 0
                && pick.sent < block
                && pick.partition < partitions
                && ownership.ownsLocally(queueName, pick.partition) == pick.local) {
            pick.sent++;
        } else {
            int chosen = owned(queueName, partitions);
            pick.local = chosen >= 0;
            pick.partition = pick.local ? chosen : ThreadLocalRandom.current().nextInt(partitions);
            pick.sent = 1;
        }
        return pick;
    }

    /** A random one of the partitions owned here; any when none is. */
    private int fresh(String queueName, int partitions) {
        int chosen = owned(queueName, partitions);
        return chosen >= 0 ? chosen : ThreadLocalRandom.current().nextInt(partitions);
    }

    /** A random one of the partitions owned here, in one pass (reservoir sampling); -1 when none is. */
    private int owned(String queueName, int partitions) {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        int start = random.nextInt(partitions);
        int chosen = -1;
        int seen = 0;
        for (int k = 0; k < partitions; k++) {
            int i = (start + k) % partitions;
            if (ownership.ownsLocally(queueName, i) && random.nextInt(++seen) == 0) {
                chosen = i;
            }
        }
        return chosen;
    }

    /** One thread's current choice for one queue, and how many of its sends are in flight (completed on any thread). */
    private static final class Pick {
        private final AtomicInteger inFlight = new AtomicInteger();
        private int partition;
        private boolean local;
        private int sent;
    }
}
