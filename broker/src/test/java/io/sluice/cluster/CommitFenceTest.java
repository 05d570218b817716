package io.sluice.cluster;

import static io.sluice.cluster.InProcessCluster.commitPort;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hazelcast.core.HazelcastInstance;
import io.sluice.cluster.store.PartitionStore;
import io.sluice.cluster.store.StoreFormat;
import io.sluice.partition.Ownership;
import io.sluice.partition.PartitionDirectory;
import io.sluice.partition.PartitionLoops;
import io.sluice.partition.PartitionMoved;
import io.sluice.queue.Clock;
import io.sluice.queue.CommitPort;
import io.sluice.queue.Delivery;
import io.sluice.queue.InMemoryQueueRegistry;
import io.sluice.queue.MessageRecord;
import io.sluice.queue.MessageState;
import io.sluice.queue.Partition;
import io.sluice.queue.PartitionChange;
import io.sluice.queue.PartitionKey;
import io.sluice.queue.PartitionRequest;
import io.sluice.queue.PartitionSnapshot;
import io.sluice.queue.QueueMeta;
import io.sluice.queue.SendOutcome;
import io.sluice.queue.SequenceClock;
import io.sluice.queue.StoredMessage;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The commit fence: a partition's changes are written only by the member that owns the
 * partition. Two real Hazelcast members in this JVM; each queue partition's records live in the
 * Hazelcast partition of its key, owned by one of them. A commit through the other member, or
 * under an identity the member no longer has, is refused on the primary and stores nothing. An
 * accepted receive reaches the backup as the message's new delivery state.
 */
class CommitFenceTest {
    private static final String QUEUE = "fenced";
    private static final int PARTITIONS = 16;
    /** The creation time of the queue whose partitions these commits belong to. */
    private static final long INCARNATION = 1_700_000_000_000L;

    private static InProcessCluster cluster;
    private static HazelcastInstance a;
    private static HazelcastInstance b;

    @BeforeAll
    static void start() {
        cluster = new InProcessCluster();
        a = cluster.member();
        b = cluster.member();
        InProcessCluster.awaitSettled(a);
    }

    @AfterAll
    static void stop() {
        cluster.close();
    }

    /**
     * The message ids one replica of a queue partition holds, read on that replica's partition
     * thread: replica 0 on the partition's owner, replica 1 (the backup) on the other member.
     */
    private static Set<String> replica(int partition, int replicaIndex) throws Exception {
        PartitionKey key = new PartitionKey(QUEUE, partition);
        boolean aOwns =
                a.getPartitionService().getPartition(key.toString()).getOwner().localMember();
        HazelcastInstance owner = aOwns ? a : b;
        HazelcastInstance holder = replicaIndex == 0 ? owner : (aOwns ? b : a);
        return join(PartitionStore.of(holder).readReplica(key, replicaIndex)).messages().stream()
                .map(StoredMessage::messageId)
                .collect(Collectors.toSet());
    }

    /** A real partition's state machine, whose changes are what a partition host commits. */
    private static Partition partition(int index) {
        return new Partition(Clock.SYSTEM, () -> Long.MAX_VALUE / 2, false, index, new SequenceClock());
    }

    /**
     * Sends one message to {@code p}, commits it through member a (the partition's owner) and
     * receives it: the receive's change is left in {@code p} for the test to commit.
     */
    private static Delivery sentThroughTheOwnerAndReceived(Partition p, int partition, String messageId)
            throws Exception {
        join(commitPort(a).commit(QUEUE, partition, INCARNATION, sendOne(p, messageId)));
        return p.receive(1, 30_000).get(0);
    }

    private static List<PartitionChange> sendOne(Partition p, String messageId) {
        p.send(
                new MessageRecord(
                        messageId,
                        "body of " + messageId,
                        Map.of(),
                        Map.of(),
                        System.currentTimeMillis(),
                        "sender",
                        null,
                        null,
                        null),
                0);
        return p.drainChanges();
    }

    private static <T> T join(CompletionStage<T> stage) throws Exception {
        return stage.toCompletableFuture().get(30, TimeUnit.SECONDS);
    }

    @Test
    void theOwnerCommitsToThePrimaryAndItsBackup() throws Exception {
        int mine = InProcessCluster.partitionOwnedBy(a, QUEUE, PARTITIONS);

        join(commitPort(a).commit(QUEUE, mine, INCARNATION, sendOne(partition(mine), "owned-1")));

        assertTrue(replica(mine, 0).contains("owned-1"), "stored on the primary");
        assertTrue(replica(mine, 1).contains("owned-1"), "and on the backup before the commit completed");
        PartitionSnapshot loaded = join(commitPort(a).load(QUEUE, mine));
        assertTrue(
                loaded.messages().stream().anyMatch(m -> m.messageId().equals("owned-1")),
                "a new owner would rebuild it");
    }

    @Test
    void aReceiveReachesTheBackupAsTheMessagesNewDeliveryState() throws Exception {
        int mine = InProcessCluster.partitionOwnedBy(a, QUEUE, PARTITIONS);
        Partition p = partition(mine);
        Delivery d = sentThroughTheOwnerAndReceived(p, mine, "received-1");

        assertEquals(StoreFormat.CURRENT, PartitionStore.of(a).clusterFormat(), "both members are of this build");
        join(commitPort(a).commit(QUEUE, mine, INCARNATION, p.drainChanges()));

        PartitionKey key = new PartitionKey(QUEUE, mine);
        StoredMessage backup = join(PartitionStore.of(b).readReplica(key, 1)).messages().stream()
                .filter(m -> m.messageId().equals("received-1"))
                .findFirst()
                .orElseThrow();
        assertEquals(MessageState.IN_FLIGHT, backup.state());
        assertEquals(1, backup.receiveCount());
        assertEquals(d.receiptToken(), backup.receiptToken(), "a new owner would accept the consumer's receipt handle");
        assertEquals("body of received-1", backup.body());
    }

    @Test
    void onlyTheOwnerLoadsAPartition() throws Exception {
        int theirs = InProcessCluster.partitionOwnedBy(b, QUEUE, PARTITIONS);
        ExecutionException moved =
                assertThrows(ExecutionException.class, () -> join(commitPort(a).load(QUEUE, theirs)));
        assertInstanceOf(PartitionMoved.class, moved.getCause());
    }

    @Test
    void aCommitThroughAMemberThatDoesNotOwnThePartitionIsRefused() throws Exception {
        int theirs = InProcessCluster.partitionOwnedBy(b, QUEUE, PARTITIONS);

        ExecutionException refused = assertThrows(
                ExecutionException.class,
                () -> join(commitPort(a).commit(QUEUE, theirs, INCARNATION, sendOne(partition(theirs), "stale-1"))));

        // Refused by the fence, so written nowhere: the partition's requests may run at its owner.
        assertInstanceOf(PartitionMoved.class, refused.getCause(), "refused by the fence: " + refused.getCause());
        assertFalse(replica(theirs, 0).contains("stale-1"), "nothing stored on the primary");
        assertFalse(replica(theirs, 1).contains("stale-1"), "nor on the backup");
    }

    @Test
    void aRefusedCommitChangesNothingOnTheBackup() throws Exception {
        int theirs = InProcessCluster.partitionOwnedBy(b, QUEUE, PARTITIONS);

        assertThrows(
                ExecutionException.class,
                () -> join(commitPort(a)
                        .commit(QUEUE, theirs, INCARNATION, sendOne(partition(theirs), "stale-backup-1"))));
        // The owner's next commit completes only once its backups are in place.
        join(commitPort(b).commit(QUEUE, theirs, INCARNATION, sendOne(partition(theirs), "owner-after-1")));

        assertEquals(replica(theirs, 0), replica(theirs, 1), "the backup took only what the primary took");
        assertFalse(replica(theirs, 1).contains("stale-backup-1"));
    }

    @Test
    void aCommitUnderAnIdentityTheMemberNoLongerHasIsRefused() throws Exception {
        // A member merged back after a split brain gets a new UUID: what it committed under the old one is fenced.
        int mine = InProcessCluster.partitionOwnedBy(a, QUEUE, PARTITIONS);
        CommitPort stale = commitPort(a, UUID::randomUUID);

        ExecutionException refused = assertThrows(
                ExecutionException.class,
                () -> join(stale.commit(QUEUE, mine, INCARNATION, sendOne(partition(mine), "old-identity-1"))));

        assertInstanceOf(PartitionMoved.class, refused.getCause());
        assertFalse(replica(mine, 0).contains("old-identity-1"));
    }

    @Test
    void theOwnersDeleteRemovesTheRecordAndARefusedOneLeavesIt() throws Exception {
        int mine = InProcessCluster.partitionOwnedBy(a, QUEUE, PARTITIONS);
        Partition p = partition(mine);
        Delivery d = sentThroughTheOwnerAndReceived(p, mine, "deleted-1");
        assertTrue(p.delete(d.messageId(), d.receiptToken()));
        List<PartitionChange> deletion = p.drainChanges();

        // Through the wrong member (with the owner's records in place) the delete is refused ...
        assertThrows(
                ExecutionException.class,
                () -> join(commitPort(b, () -> b.getCluster().getLocalMember().getUuid())
                        .commit(QUEUE, mine, INCARNATION, deletion)));
        assertTrue(replica(mine, 0).contains("deleted-1"));
        // ... and through the owner it removes the record.
        join(commitPort(a).commit(QUEUE, mine, INCARNATION, deletion));
        assertFalse(replica(mine, 0).contains("deleted-1"));
        assertFalse(replica(mine, 1).contains("deleted-1"));
    }

    /**
     * Which queue partitions a member's store holds records of, as primary or backup: what the
     * reconciler looks through for leftovers of deleted queues. A partition is listed on both
     * members once a commit stored a message, and on neither once its last message is removed.
     */
    @Test
    void theStoreListsThePartitionsItHoldsRecordsOf() throws Exception {
        String queue = "held";
        int mine = InProcessCluster.partitionOwnedBy(a, queue, PARTITIONS);
        PartitionKey key = new PartitionKey(queue, mine);
        Partition p = partition(mine);

        join(commitPort(a).commit(queue, mine, INCARNATION, sendOne(p, "held-1")));
        assertTrue(PartitionStore.of(a).heldPartitions().contains(key), "the primary holds it");
        assertTrue(PartitionStore.of(b).heldPartitions().contains(key), "and the backup");

        Delivery d = p.receive(1, 30_000).get(0);
        assertTrue(p.delete(d.messageId(), d.receiptToken()));
        join(commitPort(a).commit(queue, mine, INCARNATION, p.drainChanges()));
        assertFalse(PartitionStore.of(a).heldPartitions().contains(key), "its last message removed");
        assertFalse(PartitionStore.of(b).heldPartitions().contains(key), "on the backup too");
    }

    /**
     * The whole path on a node whose idea of ownership is stale (here: it believes it owns every
     * partition): it cannot even load the partition, since only the primary answers a load, so
     * the request fails with {@link PartitionMoved} (the router looks the owner up again and
     * retries there), nothing is acknowledged or stored, and no partition is left running.
     */
    @Test
    void aNodeThatStillBelievesItOwnsAPartitionAcknowledgesNothing() throws Exception {
        int theirs = InProcessCluster.partitionOwnedBy(b, QUEUE, PARTITIONS);
        Vertx vertx = Vertx.vertx();
        try {
            InMemoryQueueRegistry registry = new InMemoryQueueRegistry(Clock.SYSTEM);
            long now = System.currentTimeMillis();
            join(registry.create(new QueueMeta(QUEUE, false, PARTITIONS, now, now, Map.of(), Map.of(), 0)));
            PartitionDirectory believer = new PartitionDirectory(
                    PartitionLoops.deploy(vertx, 1, Clock.SYSTEM).await(),
                    commitPort(a),
                    Clock.SYSTEM,
                    registry,
                    (queue, partition) -> {},
                    Ownership.ALWAYS);

            Future<SendOutcome> send = believer.execute(
                    QUEUE,
                    theirs,
                    new PartitionRequest.Send(
                            new MessageRecord(
                                    "believed-1", "body", Map.of(), Map.of(), now, "sender", null, null, null),
                            0));

            ExecutionException failed = assertThrows(ExecutionException.class, () -> join(send.toCompletionStage()));
            assertInstanceOf(PartitionMoved.class, failed.getCause(), "not acknowledged: go to the owner");
            assertFalse(replica(theirs, 0).contains("believed-1"), "nothing stored");
            await("no partition left running")
                    .atMost(Duration.ofSeconds(10))
                    .until(() -> !believer.isStarted(QUEUE, theirs));
        } finally {
            join(vertx.close().toCompletionStage());
        }
    }
}
