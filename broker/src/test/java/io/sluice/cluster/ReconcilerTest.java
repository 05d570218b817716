package io.sluice.cluster;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import io.sluice.config.ClusterSettings;
import io.sluice.partition.Ownership;
import io.sluice.partition.PartitionDirectory;
import io.sluice.partition.PartitionLoops;
import io.sluice.queue.Clock;
import io.sluice.queue.CommitPort;
import io.sluice.queue.InMemoryQueueRegistry;
import io.sluice.queue.MessageState;
import io.sluice.queue.PartitionChange;
import io.sluice.queue.PartitionKey;
import io.sluice.queue.PartitionSnapshot;
import io.sluice.queue.QueueMeta;
import io.sluice.queue.StoredMessage;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The reconciler keeps the partitions a node runs equal to those it owns: it starts every owned
 * partition of every queue (so each is rebuilt before a request needs it), drops those that moved
 * away and wakes their queue's parked receives (to claim through the new owner), and calls the
 * node ready only once the cluster is safe and every owned partition is rebuilt. Real Vert.x
 * loops and partitions, a real Hazelcast partition service; ownership is first set by hand, then
 * moved by Hazelcast itself as a member joins and leaves.
 */
class ReconcilerTest {
    /** A queue partition, as the ownership the test sets by hand names it. */
    private record Slot(String queue, int index) {}

    private static HazelcastInstance standalone;
    private final Vertx vertx = Vertx.vertx();
    private final ExecutorService blocking = Executors.newSingleThreadExecutor();
    private final InMemoryQueueRegistry registry = new InMemoryQueueRegistry(Clock.SYSTEM);
    private final Set<Slot> owned = ConcurrentHashMap.newKeySet();
    private final List<String> woken = new CopyOnWriteArrayList<>();
    /** Loads of partition state not answered yet, while {@link #holdLoads} is set. */
    private final List<CompletableFuture<PartitionSnapshot>> heldLoads = new CopyOnWriteArrayList<>();

    private volatile boolean holdLoads;
    /** What every load finds stored. */
    private volatile PartitionSnapshot stored = PartitionSnapshot.EMPTY;
    /** The messages each queue partition's commits removed. */
    private final Map<PartitionKey, List<String>> removed = new ConcurrentHashMap<>();

    /** Storage whose loads can be held, as a slow rebuild from a large partition would be. */
    private final CommitPort storage = new CommitPort() {
        @Override
        public CompletionStage<Void> commit(
                String queueName, int partition, long incarnation, List<PartitionChange> changes) {
            for (PartitionChange c : changes) {
                if (c instanceof PartitionChange.MessageRemoved gone) {
                    removed.computeIfAbsent(new PartitionKey(queueName, partition), k -> new CopyOnWriteArrayList<>())
                            .add(gone.messageId());
                }
            }
            return CompletableFuture.completedFuture(null);
        }

        @Override
        public CompletionStage<PartitionSnapshot> load(String queueName, int partition) {
            CompletableFuture<PartitionSnapshot> f = new CompletableFuture<>();
            if (holdLoads) {
                heldLoads.add(f);
            } else {
                f.complete(stored);
            }
            return f;
        }
    };

    @BeforeAll
    static void startMember() {
        standalone =
                Hazelcast.newHazelcastInstance(HazelcastSetup.config(new ClusterSettings(null, "127.0.0.1", 0, 1)));
    }

    @AfterAll
    static void stopMember() {
        standalone.shutdown();
    }

    @AfterEach
    void close() throws Exception {
        vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        blocking.shutdownNow();
    }

    private void queue(String name, int partitions) {
        long now = System.currentTimeMillis();
        registry.create(new QueueMeta(name, false, partitions, now, now, Map.of(), Map.of(), 0))
                .toCompletableFuture()
                .join();
    }

    private PartitionDirectory directory(Ownership ownership) {
        return new PartitionDirectory(
                PartitionLoops.deploy(vertx, 2, Clock.SYSTEM).await(),
                storage,
                Clock.SYSTEM,
                registry,
                (queue, partition) -> {},
                ownership);
    }

    private Reconciler reconciler(PartitionDirectory directory, Ownership ownership, HazelcastInstance member) {
        return new Reconciler(
                vertx,
                directory,
                registry,
                ownership,
                member.getPartitionService(),
                (queue, partition) -> woken.add(queue),
                blocking);
    }

    private final Ownership byHand = (queue, partition) -> owned.contains(new Slot(queue, partition));

    @Test
    void startsEveryOwnedPartitionOfEveryQueueAndNoOther() {
        queue("alpha", 4);
        queue("beta", 2);
        owned.addAll(List.of(new Slot("alpha", 0), new Slot("alpha", 2), new Slot("beta", 1)));
        PartitionDirectory directory = directory(byHand);

        reconciler(directory, byHand, standalone).start(true);

        for (String queue : List.of("alpha", "beta")) {
            for (int i = 0; i < registry.find(queue).partitions(); i++) {
                assertEquals(owned.contains(new Slot(queue, i)), directory.isStarted(queue, i), queue + "#" + i);
            }
        }
    }

    @Test
    void dropsAPartitionThatMovedAwayAndWakesItsQueuesWaiters() {
        queue("alpha", 4);
        queue("beta", 2);
        owned.addAll(List.of(new Slot("alpha", 0), new Slot("alpha", 2), new Slot("beta", 1)));
        PartitionDirectory directory = directory(byHand);
        reconciler(directory, byHand, standalone).start(true);
        await("loaded").atMost(Duration.ofSeconds(10)).until(directory::allStarted);

        owned.remove(new Slot("alpha", 2));

        await("alpha#2 dropped").atMost(Duration.ofSeconds(10)).until(() -> !directory.isStarted("alpha", 2));
        assertEquals(List.of("alpha"), woken, "alpha's parked receives woken to claim through the new owner");
        assertTrue(directory.isStarted("alpha", 0) && directory.isStarted("beta", 1), "the others keep running");
    }

    @Test
    void startsPartitionsGainedLaterAndThoseOfNewQueues() {
        queue("alpha", 2);
        owned.add(new Slot("alpha", 0));
        PartitionDirectory directory = directory(byHand);
        reconciler(directory, byHand, standalone).start(true);

        owned.add(new Slot("alpha", 1));
        queue("gamma", 3);
        owned.add(new Slot("gamma", 2));

        await("gained partitions started")
                .atMost(Duration.ofSeconds(10))
                .until(() -> directory.isStarted("alpha", 1) && directory.isStarted("gamma", 2));
        assertFalse(directory.isStarted("gamma", 0));
        assertTrue(woken.isEmpty(), "nothing moved away");
    }

    @Test
    void notReadyWhileAnOwnedPartitionIsBeingRebuilt() {
        queue("alpha", 2);
        owned.add(new Slot("alpha", 0));
        PartitionDirectory directory = directory(byHand);
        Reconciler reconciler = reconciler(directory, byHand, standalone);
        reconciler.start(true);
        await("ready")
                .atMost(Duration.ofSeconds(10))
                .until(() -> reconciler.backupsInPlace() && reconciler.partitionsRebuilt());

        holdLoads = true;
        owned.add(new Slot("alpha", 1));
        await("alpha#1 loading").atMost(Duration.ofSeconds(10)).until(() -> !heldLoads.isEmpty());
        assertTrue(directory.isStarted("alpha", 1));
        assertFalse(reconciler.partitionsRebuilt(), "not ready while alpha#1 is rebuilt");

        heldLoads.forEach(f -> f.complete(PartitionSnapshot.EMPTY));
        await("ready again").atMost(Duration.ofSeconds(10)).until(reconciler::partitionsRebuilt);
    }

    /**
     * A partition that reached this node after it heard of its queue's deletion (a migration in
     * that moment) brought what a send racing the deletion stored, and nothing else erases it
     * before a queue of the same name, created after the cooldown, would load it. The reconciler
     * erases what the store holds of a queue deleted within the cooldown in partitions owned here;
     * not what it holds of a queue it merely has not heard of (its creation's news may be on the
     * way), nor a deleted queue's partition owned elsewhere (its owner erases that).
     */
    @Test
    void erasesWhatTheStoreHoldsOfAQueueDeletedMomentsAgoInPartitionsOwnedHere() {
        queue("gone", 4);
        registry.delete("gone").toCompletableFuture().join();
        stored = new PartitionSnapshot(List.of(storedMessage("raced-the-deletion")), Map.of(), Map.of());
        owned.addAll(List.of(new Slot("gone", 2), new Slot("unheard", 0)));
        Set<PartitionKey> held =
                Set.of(new PartitionKey("gone", 2), new PartitionKey("gone", 3), new PartitionKey("unheard", 0));
        PartitionDirectory directory = directory(byHand);
        Reconciler reconciler = reconciler(directory, byHand, standalone);
        reconciler.heldPartitions(() -> held);

        reconciler.start(true);

        await("gone#2 erased")
                .atMost(Duration.ofSeconds(10))
                .until(() -> removed.containsKey(new PartitionKey("gone", 2)));
        assertEquals(List.of("raced-the-deletion"), removed.get(new PartitionKey("gone", 2)));
        assertEquals(
                Set.of(new PartitionKey("gone", 2)), removed.keySet(), "gone#3 is owned elsewhere, unheard unknown");
        await("the erased partition is not kept running")
                .atMost(Duration.ofSeconds(10))
                .until(() -> !directory.isStarted("gone", 2));
        assertFalse(directory.isStarted("unheard", 0));
    }

    private static StoredMessage storedMessage(String id) {
        return new StoredMessage(
                id, "body", Map.of(), Map.of(), 1, "s", null, null, null, null, MessageState.VISIBLE, 0, 0, 0, 0, 0);
    }

    /**
     * Ownership as Hazelcast moves it: alone, a member owns every partition; when a second member
     * joins, about half of them migrate there and the first drops them; when the second leaves,
     * they come back and are started again.
     */
    @Test
    void followsThePartitionsHazelcastMoves() {
        queue("moving", 16);
        try (InProcessCluster cluster = new InProcessCluster()) {
            HazelcastInstance first = cluster.member();
            InProcessCluster.awaitSettled(first);
            HazelcastOwnership ownership = new HazelcastOwnership(first.getPartitionService());
            PartitionDirectory directory = directory(ownership);
            reconciler(directory, ownership, first).start(true);
            await("all started while alone").atMost(Duration.ofSeconds(10)).until(() -> startedCount(directory) == 16);

            HazelcastInstance second = cluster.member();
            InProcessCluster.awaitSettled(first);
            await("runs exactly what it owns")
                    .atMost(Duration.ofSeconds(20))
                    .until(() -> runsWhatItOwns(directory, ownership));
            int kept = startedCount(directory);
            assertTrue(kept > 0 && kept < 16, "some partitions moved to the new member, some stayed: " + kept);
            assertTrue(woken.contains("moving"), "the queue's parked receives were woken");

            second.shutdown();
            await("all started again").atMost(Duration.ofSeconds(30)).until(() -> startedCount(directory) == 16);
        }
    }

    private static int startedCount(PartitionDirectory directory) {
        int n = 0;
        for (int i = 0; i < 16; i++) {
            n += directory.isStarted("moving", i) ? 1 : 0;
        }
        return n;
    }

    private static boolean runsWhatItOwns(PartitionDirectory directory, Ownership ownership) {
        for (int i = 0; i < 16; i++) {
            if (directory.isStarted("moving", i) != ownership.ownsLocally("moving", i)) {
                return false;
            }
        }
        return true;
    }
}
