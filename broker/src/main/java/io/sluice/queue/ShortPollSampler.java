package io.sluice.queue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.function.IntPredicate;
import java.util.function.Supplier;
import java.util.random.RandomGenerator;

/**
 * Picks which partitions a short poll looks at. SQS answers a short poll from a weighted random
 * sample of its servers, so one poll may return fewer messages than exist while repeated polls
 * see them all. Recorded SQS answers show that on a small queue the sample almost always holds
 * the servers that have messages: a lone message sent to an empty queue comes back from an
 * immediate short poll practically every time.
 *
 * <p>Here the sample is half the partitions (at least one). Partitions holding visible messages
 * come first, drawn without replacement with weight = their visible count (Efraimidis–Spirakis
 * keys), then empty ones at random. So when few partitions hold messages all of them are
 * sampled, and when more than half do, a poll sees a weighted subset of them. Each sampled
 * partition is still skipped once in {@value #MISS_ONE_IN} polls, which keeps the rare false
 * empty that SQS shows.
 */
public final class ShortPollSampler {
    /** How rarely a sampled partition holding messages is not asked after all. */
    static final int MISS_ONE_IN = 1_000;

    /** How many times fuller a partition elsewhere must be for {@link #nearFirst} to keep the order. */
    static final int ELSEWHERE_BACKLOG = 2;

    private ShortPollSampler() {}

    /** Partition indexes to poll, most promising first. */
    public static List<Integer> sample(int[] visibleCounts, RandomGenerator random) {
        int n = visibleCounts.length;
        int size = Math.max(1, (n + 1) / 2);
        Integer[] order = new Integer[n];
        double[] keys = new double[n];
        for (int i = 0; i < n; i++) {
            order[i] = i;
            double u = random.nextDouble();
            // Larger keys win. Holding messages puts a partition ahead of every empty one (key
            // above 1); among those, u^(1/w) favours the heavy ones without excluding light ones.
            keys[i] = visibleCounts[i] > 0 ? 1.0 + Math.pow(u, 1.0 / visibleCounts[i]) : u;
        }
        Arrays.sort(order, Comparator.comparingDouble((Integer i) -> keys[i]).reversed());
        List<Integer> out = new ArrayList<>(size);
        for (int k = 0; k < size; k++) {
            if (random.nextInt(MISS_ONE_IN) != 0) {
                out.add(order[k]);
            }
        }
        return out;
    }

    /**
     * The same partitions with those {@code here} (run on this node) first, each group in the
     * order given, so that a receive is served without a hop to another node when it can be. The
     * order given stands when a partition elsewhere holds more than {@value #ELSEWHERE_BACKLOG}
     * times the visible messages of the fullest one here ({@code visibleCounts}, read only when
     * the partitions are on both sides; a missing count is 0): then consumers of this node that do
     * not keep up with its own partitions still drain the others', which otherwise only other
     * nodes' consumers would reach.
     */
    public static List<Integer> nearFirst(List<Integer> order, IntPredicate here, Supplier<int[]> visibleCounts) {
        List<Integer> near = null; // both null until the first partition elsewhere: a node alone allocates nothing
        List<Integer> far = null;
        for (int i = 0; i < order.size(); i++) {
            int p = order.get(i);
            if (here.test(p)) {
                if (near != null) {
                    near.add(p);
                }
            } else {
                if (far == null) {
                    near = new ArrayList<>(order.subList(0, i));
                    far = new ArrayList<>(order.size() - i);
                }
                far.add(p);
            }
        }
        if (far == null || near.isEmpty()) {
            return order;
        }
        int[] visible = visibleCounts.get();
        if (fullest(far, visible) > (long) ELSEWHERE_BACKLOG * fullest(near, visible)) {
            return order;
        }
        near.addAll(far);
        return near;
    }

    private static int fullest(List<Integer> partitions, int[] visibleCounts) {
        int most = 0;
        for (int p : partitions) {
            most = Math.max(most, p < visibleCounts.length ? visibleCounts[p] : 0);
        }
        return most;
    }

    /** Every partition, starting at a random one so that concurrent receivers spread out. */
    public static List<Integer> all(int partitions, RandomGenerator random) {
        int start = random.nextInt(partitions);
        List<Integer> out = new ArrayList<>(partitions);
        for (int i = 0; i < partitions; i++) {
            out.add((start + i) % partitions);
        }
        return out;
    }
}
