package io.sluice.partition;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;

class SendAffinityTest {
    private static final String QUEUE = "q";
    private static final int PARTITIONS = 8;

    /** Partitions of QUEUE this node owns; a test changes them as Hazelcast would. */
    private final Set<Integer> owned = ConcurrentHashMap.newKeySet();

    private final SendAffinity affinity =
            new SendAffinity((queue, partition) -> owned.contains(partition), SendAffinity.BLOCK);

    @Test
    void sendsOneAtATimeSpreadOverEveryPartition() {
        ownAll();
        int[] perPartition = new int[PARTITIONS];
        for (int i = 0; i < 800; i++) {
            SendAffinity.Pick pick = affinity.pick(QUEUE, PARTITIONS);
            perPartition[pick.partition()]++;
            pick.done();
        }
        for (int p = 0; p < PARTITIONS; p++) {
            // 100 expected each; missing one of eight in 800 uniform picks has odds below 1e-40.
            assertTrue(perPartition[p] > 0, "partition " + p + " got no send");
        }
    }

    @Test
    void whileSendsAreInFlightTheyStayOnOnePartitionForABlock() {
        ownAll();
        List<SendAffinity.Pick> inFlight = new ArrayList<>();
        Set<Integer> partitionsOfBlock = new HashSet<>();
        for (int i = 0; i < SendAffinity.BLOCK; i++) {
            SendAffinity.Pick pick = affinity.pick(QUEUE, PARTITIONS);
            partitionsOfBlock.add(pick.partition());
            inFlight.add(pick);
        }
        assertEquals(1, partitionsOfBlock.size(), "one block, one partition: " + partitionsOfBlock);
        inFlight.forEach(SendAffinity.Pick::done);
    }

    @Test
    void blocksGoToEveryPartitionOverTime() {
        ownAll();
        Set<Integer> used = new HashSet<>();
        List<SendAffinity.Pick> inFlight = new ArrayList<>();
        for (int i = 0; i < 200 * SendAffinity.BLOCK; i++) {
            SendAffinity.Pick pick = affinity.pick(QUEUE, PARTITIONS);
            used.add(pick.partition());
            inFlight.add(pick);
            if (inFlight.size() > 4) {
                inFlight.remove(0).done();
            }
        }
        assertEquals(PARTITIONS, used.size(), "200 blocks over 8 partitions: " + used);
    }

    @Test
    void withoutBlocksEverySendIsAFreshPickEvenWhileOthersAreInFlight() {
        SendAffinity alone = new SendAffinity((queue, partition) -> true, SendAffinity.NO_BLOCK);
        Set<Integer> used = new HashSet<>();
        for (int i = 0; i < 800; i++) {
            used.add(alone.pick(QUEUE, PARTITIONS).partition());
        }
        assertEquals(PARTITIONS, used.size(), "800 sends in flight at once: " + used);
    }

    @Test
    void onlyPartitionsOwnedHereAreChosenWhenTheNodeOwnsAny() {
        owned.addAll(List.of(2, 5));
        List<SendAffinity.Pick> inFlight = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            SendAffinity.Pick pick = affinity.pick(QUEUE, PARTITIONS);
            assertTrue(owned.contains(pick.partition()), "picked " + pick.partition());
            if (i % 3 == 0) {
                pick.done();
            } else {
                inFlight.add(pick);
            }
        }
    }

    @Test
    void aKeptPartitionThatMovesAwayIsGivenUpAtOnce() {
        owned.add(2);
        SendAffinity.Pick first = affinity.pick(QUEUE, PARTITIONS);
        assertEquals(2, first.partition());
        owned.clear();
        owned.add(5);
        SendAffinity.Pick second = affinity.pick(QUEUE, PARTITIONS);
        assertEquals(5, second.partition(), "the send still in flight on 2 must not keep the next one there");
    }

    @Test
    void aNodeThatOwnsNoneSendsAnywhereAndTakesItsOwnOnceABlockEnds() {
        List<SendAffinity.Pick> inFlight = new ArrayList<>();
        SendAffinity.Pick first = affinity.pick(QUEUE, PARTITIONS);
        inFlight.add(first);
        int other = (first.partition() + 1) % PARTITIONS;
        owned.add(other);
        for (int i = 1; i < SendAffinity.BLOCK; i++) {
            inFlight.add(affinity.pick(QUEUE, PARTITIONS));
        }
        assertEquals(other, affinity.pick(QUEUE, PARTITIONS).partition());
    }

    @Test
    void aQueueWithFewerPartitionsThanTheKeptOneGetsAFreshPick() {
        ownAll();
        List<SendAffinity.Pick> inFlight = new ArrayList<>();
        SendAffinity.Pick pick;
        do {
            pick = affinity.pick(QUEUE, PARTITIONS);
            inFlight.add(pick);
        } while (pick.partition() < 2);
        assertTrue(affinity.pick(QUEUE, 2).partition() < 2);
    }

    private void ownAll() {
        for (int p = 0; p < PARTITIONS; p++) {
            owned.add(p);
        }
    }
}
