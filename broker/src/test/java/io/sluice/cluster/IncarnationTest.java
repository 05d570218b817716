package io.sluice.cluster;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.hazelcast.core.HazelcastInstance;
import io.sluice.cluster.store.PartitionStore;
import io.sluice.cluster.store.StoreFormat;
import io.sluice.cluster.store.StoreSerialization;
import io.sluice.partition.PartitionDirectory;
import io.sluice.partition.PartitionLoops;
import io.sluice.queue.Clock;
import io.sluice.queue.Delivery;
import io.sluice.queue.InMemoryQueueRegistry;
import io.sluice.queue.MessageRecord;
import io.sluice.queue.Partition;
import io.sluice.queue.PartitionChange;
import io.sluice.queue.PartitionKey;
import io.sluice.queue.PartitionRequest;
import io.sluice.queue.PartitionSnapshot;
import io.sluice.queue.QueueMeta;
import io.sluice.queue.SequenceClock;
import io.sluice.queue.StoredMessage;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A queue deleted and created again under the same name: the records the deleted one left in
 * storage (a send that raced its deletion, in a partition that moved while every node erased what
 * it held) never reach the new one. Commits and loads name the queue's incarnation, its creation
 * time. Two real Hazelcast members in this JVM; the commits go
 * through member a, the owner of the queue partition, and are backed up on b.
 */
class IncarnationTest {
    private static final int PARTITIONS = 16;
    private static final long DELETED = 1_700_000_000_000L;
    private static final long CREATED_LATER = DELETED + 120_000;
    /** The newest class id of the store's operations in the build before this one (COMMIT_BACKUP_WITH_DELIVERIES). */
    private static final int LAST_CLASS_ID_BEFORE = 8;

    private static InProcessCluster cluster;
    private static HazelcastInstance a;
    private static HazelcastInstance b;
    private static Vertx vertx;

    @BeforeAll
    static void start() {
        vertx = Vertx.vertx();
        cluster = new InProcessCluster();
        a = cluster.member();
        b = cluster.member();
        InProcessCluster.awaitSettled(a);
    }

    @AfterAll
    static void stop() throws Exception {
        cluster.close();
        join(vertx.close().toCompletionStage());
    }

    /** Commits through member a, the owner of the queue partitions these tests use. */
    private static HazelcastCommitPort port() {
        return InProcessCluster.commitPort(a);
    }

    /** A queue partition owned by member a that holds one message of the deleted incarnation of {@code queue}. */
    private static int leftOverOnA(String queue) throws Exception {
        int mine = InProcessCluster.partitionOwnedBy(a, queue, PARTITIONS);
        join(port().commit(queue, mine, DELETED, sendOne("left-over")));
        return mine;
    }

    /** The partitions member a runs, as a node does: committed through it, placed by its partition table. */
    private static PartitionDirectory directoryOnA(InMemoryQueueRegistry registry) {
        return new PartitionDirectory(
                PartitionLoops.deploy(vertx, 1, Clock.SYSTEM).await(),
                port(),
                Clock.SYSTEM,
                registry,
                (q, partition) -> {},
                new HazelcastOwnership(a.getPartitionService()));
    }

    private static <T> T join(CompletionStage<T> stage) throws Exception {
        return stage.toCompletableFuture().get(30, TimeUnit.SECONDS);
    }

    private static List<PartitionChange> sendOne(String messageId) {
        Partition p = new Partition(Clock.SYSTEM, () -> Long.MAX_VALUE / 2, false, 0, new SequenceClock());
        p.send(message(messageId), 0);
        return p.drainChanges();
    }

    private static MessageRecord message(String messageId) {
        return new MessageRecord(
                messageId,
                "body of " + messageId,
                Map.of(),
                Map.of(),
                System.currentTimeMillis(),
                "s",
                null,
                null,
                null);
    }

    /** The message ids a replica holds (0: the primary, on a; 1: the backup, on b), and its incarnation. */
    private static PartitionSnapshot replica(String queue, int partition, int replicaIndex) throws Exception {
        HazelcastInstance holder = replicaIndex == 0 ? a : b;
        return join(PartitionStore.of(holder).readReplica(new PartitionKey(queue, partition), replicaIndex));
    }

    private static Set<String> ids(PartitionSnapshot snapshot) {
        return snapshot.messages().stream().map(StoredMessage::messageId).collect(Collectors.toSet());
    }

    /** Both replicas of the queue partition hold exactly {@code ids}, under {@code incarnation}. */
    private static void assertEveryReplicaHolds(String queue, int partition, long incarnation, Set<String> ids)
            throws Exception {
        for (int replica = 0; replica <= 1; replica++) {
            PartitionSnapshot held = replica(queue, partition, replica);
            assertEquals(ids, ids(held), "replica " + replica);
            assertEquals(incarnation, held.incarnation(), "replica " + replica);
        }
    }

    @Test
    void aCommitOfTheQueueCreatedLaterDropsTheDeletedOnesRecordsOnEveryReplica() throws Exception {
        String queue = "renewed";
        int mine = leftOverOnA(queue);

        join(port().commit(queue, mine, CREATED_LATER, sendOne("new-1")));

        assertEveryReplicaHolds(queue, mine, CREATED_LATER, Set.of("new-1"));
    }

    /**
     * Incarnations are creation times from different nodes' clocks: a queue created again by a
     * node whose clock is behind may have the earlier one. Its records replace the deleted queue's
     * all the same.
     */
    @Test
    void anEarlierCreationTimeFromAClockThatIsBehindCountsAsAnotherIncarnation() throws Exception {
        String queue = "skewed";
        int mine = leftOverOnA(queue);

        join(port().commit(queue, mine, DELETED - 5_000, sendOne("new-1")));

        assertEveryReplicaHolds(queue, mine, DELETED - 5_000, Set.of("new-1"));
    }

    /**
     * The whole path on the partition's owner: the queue created later under the name loads an
     * empty partition over the deleted one's records, and its first commit leaves only its own.
     */
    @Test
    void aQueueCreatedLaterUnderTheNameStartsEmpty() throws Exception {
        String queue = "reborn";
        int mine = leftOverOnA(queue);
        InMemoryQueueRegistry registry = new InMemoryQueueRegistry(Clock.SYSTEM);
        join(registry.create(
                new QueueMeta(queue, false, PARTITIONS, CREATED_LATER, CREATED_LATER, Map.of(), Map.of(), 0)));
        PartitionDirectory directory = directoryOnA(registry);

        List<Delivery> received = join(directory
                        .execute(queue, mine, new PartitionRequest.Receive(10, 30_000))
                        .toCompletionStage())
                .delivered();
        assertEquals(List.of(), received, "the deleted queue's message is not this queue's");

        join(directory
                .execute(queue, mine, new PartitionRequest.Send(message("new-1"), 0))
                .toCompletionStage());
        assertEveryReplicaHolds(queue, mine, CREATED_LATER, Set.of("new-1"));
    }

    /**
     * The reconciler erases what a node holds of a queue deleted moments ago through a stand-in that
     * knows no incarnation (the queue's metadata is gone): it erases the records whatever incarnation
     * they name, on both replicas.
     */
    @Test
    void aDeletedQueuesStandInErasesItsRecordsWhateverTheirIncarnation() throws Exception {
        String queue = "erased";
        int mine = leftOverOnA(queue);
        PartitionDirectory directory = directoryOnA(new InMemoryQueueRegistry(Clock.SYSTEM));

        directory.forget(QueueMeta.deleted(queue, PARTITIONS));

        await("erased on both replicas")
                .atMost(Duration.ofSeconds(30))
                .until(() -> ids(replica(queue, mine, 0)).isEmpty()
                        && ids(replica(queue, mine, 1)).isEmpty());
    }

    /**
     * A rolling upgrade: while a member of the build before (it announces deliveries, not the
     * store's form, and reads no operation added since) is in the cluster, commits travel in the
     * form it reads, without the incarnation; in this build's form its backup would fail them.
     */
    @Test
    void whileAMemberOfTheBuildBeforeIsInTheClusterCommitsCarryNoIncarnation() throws Exception {
        try (InProcessCluster mixed = new InProcessCluster()) {
            HazelcastInstance current = mixed.member();
            assertEquals(StoreFormat.CURRENT, PartitionStore.of(current).clusterFormat(), "alone");
            HazelcastInstance older = mixed.member(config -> {
                // It announces deliveries only, and its factory knows no class id added since.
                config.getMemberAttributeConfig().removeAttribute(StoreFormat.ATTRIBUTE);
                StoreSerialization factory = new StoreSerialization();
                config.getSerializationConfig()
                        .getDataSerializableFactories()
                        .put(
                                StoreSerialization.FACTORY_ID,
                                classId -> classId > LAST_CLASS_ID_BEFORE ? null : factory.create(classId));
                return config;
            });
            InProcessCluster.awaitSettled(current);
            assertEquals(StoreFormat.DELIVERIES, PartitionStore.of(current).clusterFormat());

            String queue = "upgrading";
            int mine = InProcessCluster.partitionOwnedBy(current, queue, PARTITIONS);
            join(InProcessCluster.commitPort(current).commit(queue, mine, CREATED_LATER, sendOne("mixed-1")));

            PartitionSnapshot backup = join(PartitionStore.of(older).readReplica(new PartitionKey(queue, mine), 1));
            assertEquals(Set.of("mixed-1"), ids(backup));
            assertEquals(PartitionSnapshot.UNKNOWN_INCARNATION, backup.incarnation(), "what the older build keeps");

            older.shutdown();
            await("the newest form once the older member left")
                    .atMost(Duration.ofSeconds(30))
                    .until(() -> PartitionStore.of(current).clusterFormat() == StoreFormat.CURRENT);
        }
    }
}
