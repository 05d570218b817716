package io.sluice.queue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.random.RandomGenerator;

/**
 * Picks which partitions a short poll looks at. SQS answers a short poll from a weighted random
 * sample of its servers, so one poll may miss messages that exist ("false empty") while repeated
 * polls see them all. Here the sample is half the partitions (at least one), drawn without
 * replacement with weight 1 + visible count (Efraimidis–Spirakis keys), so partitions holding
 * messages are likely, and empty ones still possible, to be picked.
 */
public final class ShortPollSampler {
    private ShortPollSampler() { }

    /** Partition indexes to poll, most promising first. */
    public static List<Integer> sample(int[] visibleCounts, RandomGenerator random) {
        int n = visibleCounts.length;
        int size = Math.max(1, (n + 1) / 2);
        Integer[] order = new Integer[n];
        double[] keys = new double[n];
        for (int i = 0; i < n; i++) {
            order[i] = i;
            double weight = 1.0 + Math.max(0, visibleCounts[i]);
            // Larger keys win; u^(1/w) favours heavy partitions without excluding light ones.
            keys[i] = Math.pow(random.nextDouble(), 1.0 / weight);
        }
        Arrays.sort(order, Comparator.comparingDouble((Integer i) -> keys[i]).reversed());
        return new ArrayList<>(Arrays.asList(order).subList(0, size));
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
