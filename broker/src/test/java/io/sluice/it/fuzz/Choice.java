package io.sluice.it.fuzz;

import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.RandomGenerator;
import net.jqwik.api.Shrinkable;
import net.jqwik.api.Tuple;
import net.jqwik.api.Tuple.Tuple2;

/**
 * Weighted choices among arbitraries. jqwik's own frequencyOf, oneOf and injectNull flat-map: for
 * every value they look the chosen arbitrary's generator up again, hashing the whole arbitrary
 * tree on the way, which made generation the bulk of the fuzzing's time. These build the
 * generators of their branches once, with the generator of the choice itself.
 */
final class Choice {
    private Choice() {}

    @SafeVarargs
    static <T> Arbitrary<T> weighted(Tuple2<Integer, ? extends Arbitrary<? extends T>>... branches) {
        return weighted(List.of(branches));
    }

    static <T> Arbitrary<T> weighted(List<? extends Tuple2<Integer, ? extends Arbitrary<? extends T>>> branches) {
        int[] weights = new int[branches.size()];
        List<Arbitrary<? extends T>> arbitraries = new ArrayList<>();
        int total = 0;
        for (int i = 0; i < branches.size(); i++) {
            weights[i] = branches.get(i).get1();
            total += weights[i];
            arbitraries.add(branches.get(i).get2());
        }
        int sum = total;
        return Arbitraries.fromGeneratorWithSize(genSize -> {
            List<RandomGenerator<? extends T>> generators = new ArrayList<>();
            for (Arbitrary<? extends T> a : arbitraries) {
                generators.add(a.generator(genSize));
            }
            return random -> {
                int pick = random.nextInt(sum);
                int i = 0;
                while (pick >= weights[i]) {
                    pick -= weights[i++];
                }
                @SuppressWarnings("unchecked")
                Shrinkable<T> value = (Shrinkable<T>) generators.get(i).next(random);
                return value;
            };
        });
    }

    @SafeVarargs
    static <T> Arbitrary<T> oneOf(Arbitrary<? extends T>... arbitraries) {
        return oneOf(List.of(arbitraries));
    }

    static <T> Arbitrary<T> oneOf(List<? extends Arbitrary<? extends T>> arbitraries) {
        List<Tuple2<Integer, Arbitrary<? extends T>>> branches = new ArrayList<>();
        for (Arbitrary<? extends T> a : arbitraries) {
            branches.add(Tuple.of(1, a));
        }
        return weighted(branches);
    }

    /** The arbitrary's values, or null with the given probability. */
    static <T> Arbitrary<T> orNull(Arbitrary<T> arbitrary, double nullProbability) {
        return Arbitraries.fromGeneratorWithSize(genSize -> {
            RandomGenerator<T> values = arbitrary.generator(genSize);
            return random ->
                    random.nextDouble() < nullProbability ? Shrinkable.unshrinkable(null) : values.next(random);
        });
    }
}
