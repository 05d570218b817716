package io.sluice.partition;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import java.util.ArrayDeque;
import java.util.Deque;
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

    /** Sends not answered yet, oldest first. */
    private final Deque<Promise<Integer>> inFlight = new ArrayDeque<>();

    /** One send that stays in flight until {@link #answerOldest()}; returns the partition it went to. */
    private int sendAndHold(SendAffinity to, int partitions) {
        int[] partition = new int[1];
        to.send(QUEUE, partitions, p -> {
            partition[0] = p;
            Promise<Integer> answer = Promise.promise();
            inFlight.add(answer);
            return answer.future();
        });
        return partition[0];
    }

    private int sendAndHold() {
        return sendAndHold(affinity, PARTITIONS);
    }

    /** One send answered at once. */
    private int sendAnswered() {
        return affinity.send(QUEUE, PARTITIONS, Future::succeededFuture).result();
    }

    private void answerOldest() {
        inFlight.removeFirst().complete(0);
    }

    @Test
    void sendsOneAtATimeSpreadOverEveryPartition() {
        ownAll();
        int[] perPartition = new int[PARTITIONS];
        for (int i = 0; i < 800; i++) {
            perPartition[sendAnswered()]++;
        }
        for (int p = 0; p < PARTITIONS; p++) {
            // 100 expected each; missing one of eight in 800 uniform picks has odds below 1e-40.
            assertTrue(perPartition[p] > 0, "partition " + p + " got no send");
        }
    }

    @Test
    void whileSendsAreInFlightTheyStayOnOnePartitionForABlock() {
        ownAll();
        Set<Integer> partitionsOfBlock = new HashSet<>();
        for (int i = 0; i < SendAffinity.BLOCK; i++) {
            partitionsOfBlock.add(sendAndHold());
        }
        assertEquals(1, partitionsOfBlock.size(), "one block, one partition: " + partitionsOfBlock);
    }

    @Test
    void aSendAfterEveryEarlierOneWasAnsweredIsAFreshPick() {
        ownAll();
        int longestRun = 0;
        int run = 0;
        int previous = -1;
        for (int i = 0; i < 800; i++) {
            int partition = sendAndHold();
            answerOldest();
            run = partition == previous ? run + 1 : 1;
            longestRun = Math.max(longestRun, run);
            previous = partition;
        }
        // Fresh uniform picks: a run of 16 on one partition in 800 sends has odds near 1e-11; a kept block is 32.
        assertTrue(longestRun < 16, "answered sends kept a partition " + longestRun + " times in a row");
    }

    @Test
    void blocksGoToEveryPartitionOverTime() {
        ownAll();
        Set<Integer> used = new HashSet<>();
        for (int i = 0; i < 200 * SendAffinity.BLOCK; i++) {
            used.add(sendAndHold());
            if (inFlight.size() > 4) {
                answerOldest();
            }
        }
        assertEquals(PARTITIONS, used.size(), "200 blocks over 8 partitions: " + used);
    }

    @Test
    void onlyPartitionsOwnedHereAreChosenWhenTheNodeOwnsAny() {
        owned.addAll(List.of(2, 5));
        for (int i = 0; i < 1000; i++) {
            int partition = i % 3 == 0 ? sendAnswered() : sendAndHold();
            assertTrue(owned.contains(partition), "picked " + partition);
        }
    }

    @Test
    void aKeptPartitionThatMovesAwayIsGivenUpAtOnce() {
        owned.add(2);
        assertEquals(2, sendAndHold());
        owned.clear();
        owned.add(5);
        assertEquals(5, sendAndHold(), "the send still in flight on 2 must not keep the next one there");
    }

    @Test
    void aNodeThatOwnsNoneSendsAnywhereAndTakesItsOwnOnceABlockEnds() {
        int first = sendAndHold();
        int other = (first + 1) % PARTITIONS;
        owned.add(other);
        for (int i = 1; i < SendAffinity.BLOCK; i++) {
            assertEquals(first, sendAndHold(), "a block started on another node's partition is kept");
        }
        assertEquals(other, sendAndHold());
    }

    @Test
    void aQueueWithFewerPartitionsThanTheKeptOneGetsAFreshPick() {
        ownAll();
        int partition;
        do {
            partition = sendAndHold();
        } while (partition < 2);
        assertTrue(sendAndHold(affinity, 2) < 2);
    }

    @Test
    void withoutBlocksEverySendIsAFreshPickEvenWhileOthersAreInFlight() {
        SendAffinity alone = new SendAffinity((queue, partition) -> true, SendAffinity.NO_BLOCK);
        Set<Integer> used = new HashSet<>();
        for (int i = 0; i < 800; i++) {
            used.add(sendAndHold(alone, PARTITIONS));
        }
        assertEquals(PARTITIONS, used.size(), "800 sends in flight at once: " + used);
    }

    private void ownAll() {
        for (int p = 0; p < PARTITIONS; p++) {
            owned.add(p);
        }
    }
}
