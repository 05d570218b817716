package io.sluice.cluster;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.map.IMap;
import io.sluice.partition.Ownership;
import io.sluice.partition.PartitionDirectory;
import io.sluice.partition.PartitionLoops;
import io.sluice.queue.Clock;
import io.sluice.queue.CommitPort;
import io.sluice.queue.Delivery;
import io.sluice.queue.ErrorCode;
import io.sluice.queue.InMemoryQueueRegistry;
import io.sluice.queue.MessageRecord;
import io.sluice.queue.Partition;
import io.sluice.queue.PartitionChange;
import io.sluice.queue.PartitionKey;
import io.sluice.queue.PartitionRequest;
import io.sluice.queue.PartitionSnapshot;
import io.sluice.queue.QueueMeta;
import io.sluice.queue.SendOutcome;
import io.sluice.queue.SequenceClock;
import io.sluice.queue.SqsException;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The commit fence: a partition's changes are written only by the member that owns the
 * partition. Two real Hazelcast members in this JVM; each queue partition's records live in the
 * Hazelcast partition of its key, owned by one of them. A commit through the other member, or
 * under an identity the member no longer has, is refused on the primary and stores nothing.
 */
class CommitFenceTest {
    private static final String QUEUE = "fenced";
    private static final int PARTITIONS = 16;

    private static InProcessCluster cluster;
    private static HazelcastInstance a;
    private static HazelcastInstance b;
    private static ExecutorService blocking;

    @BeforeAll
    static void start() {
        cluster = new InProcessCluster();
        a = cluster.member();
        b = cluster.member();
        InProcessCluster.awaitSettled(a);
        blocking = Executors.newFixedThreadPool(2);
    }

    @AfterAll
    static void stop() {
        blocking.shutdownNow();
        cluster.close();
    }

    private static HazelcastCommitPort portOf(HazelcastInstance member) {
        return portAs(member, () -> member.getCluster().getLocalMember().getUuid());
    }

    private static HazelcastCommitPort portAs(HazelcastInstance member, Supplier<UUID> identity) {
        return new HazelcastCommitPort(member.getMap(HazelcastSetup.MESSAGES_MAP), identity, blocking);
    }

    private static IMap<String, byte[]> messages(HazelcastInstance member) {
        return member.getMap(HazelcastSetup.MESSAGES_MAP);
    }

    private static String messageKey(int partition, String messageId) {
        return MessageKeys.key(MessageKeys.MESSAGE, messageId, new PartitionKey(QUEUE, partition));
    }

    /** A real partition's state machine, whose changes are what a partition host commits. */
    private static Partition partition(int index) {
        return new Partition(Clock.SYSTEM, () -> Long.MAX_VALUE / 2, false, index, new SequenceClock());
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

    /**
     * How many entries {@code primary} owns and how many backups {@code backup} holds: with two
     * members and one backup, every partition one owns has its backup on the other, so a write
     * applied on both replicas changes both counts alike.
     */
    private record Replicas(long owned, long backups) {
        static Replicas of(HazelcastInstance primary, HazelcastInstance backup) {
            return new Replicas(
                    messages(primary).getLocalMapStats().getOwnedEntryCount(),
                    messages(backup).getLocalMapStats().getBackupEntryCount());
        }

        Replicas since(Replicas before) {
            return new Replicas(owned - before.owned, backups - before.backups);
        }
    }

    @Test
    void theOwnerCommitsToThePrimaryAndItsBackup() throws Exception {
        int mine = InProcessCluster.partitionOwnedBy(a, QUEUE, PARTITIONS);
        Replicas before = Replicas.of(a, b);

        join(portOf(a).commit(QUEUE, mine, sendOne(partition(mine), "owned-1")));

        assertNotNull(messages(b).get(messageKey(mine, "owned-1")), "stored, and readable through the other member");
        Replicas added = Replicas.of(a, b).since(before);
        assertTrue(added.owned() > 0, "stored on the primary");
        assertEquals(added.owned(), added.backups(), "and on the backup before the commit completed");
        PartitionSnapshot loaded = join(portOf(a).load(QUEUE, mine));
        assertTrue(
                loaded.messages().stream().anyMatch(m -> m.messageId().equals("owned-1")),
                "a new owner would rebuild it");
    }

    @Test
    void aCommitThroughAMemberThatDoesNotOwnThePartitionIsRefused() throws Exception {
        int theirs = InProcessCluster.partitionOwnedBy(b, QUEUE, PARTITIONS);

        ExecutionException refused = assertThrows(
                ExecutionException.class,
                () -> join(portOf(a).commit(QUEUE, theirs, sendOne(partition(theirs), "stale-1"))));

        assertInstanceOf(
                IllegalStateException.class, refused.getCause(), "refused by the fence: " + refused.getCause());
        assertNull(messages(b).get(messageKey(theirs, "stale-1")), "nothing stored on the primary");
    }

    /**
     * Hazelcast runs the backup processor of a {@code submitToKeys} on every key whatever the
     * primary's processor decided, and {@link CommitEntries}' backup applies without the check:
     * the backup replica takes the write the primary refused. Should the primary die before the
     * key is written again, the promoted backup holds it (with three members, a refused record
     * was read back after its primary was terminated): a deleted message back, or a message the
     * owner still holds gone. Enable this test with the fix of CommitEntries (e.g. no backup
     * processor once the primary refused).
     */
    @Test
    void aRefusedCommitChangesNothingOnTheBackup() throws Exception {
        int theirs = InProcessCluster.partitionOwnedBy(b, QUEUE, PARTITIONS);
        Replicas before = Replicas.of(b, a);

        assertThrows(
                ExecutionException.class,
                () -> join(portOf(a).commit(QUEUE, theirs, sendOne(partition(theirs), "stale-backup-1"))));
        // The owner's next commit completes only once its backups are in place, and a partition's
        // backups apply in order: by then the backup has applied whatever came before.
        join(portOf(b).commit(QUEUE, theirs, sendOne(partition(theirs), "owner-after-1")));

        Replicas added = Replicas.of(b, a).since(before);
        assertEquals(added.owned(), added.backups(), "the backup took only what the primary took");
    }

    @Test
    void aCommitUnderAnIdentityTheMemberNoLongerHasIsRefused() throws Exception {
        // A member merged back after a split brain gets a new UUID: what it committed under the old one is fenced.
        int mine = InProcessCluster.partitionOwnedBy(a, QUEUE, PARTITIONS);
        CommitPort stale = portAs(a, UUID::randomUUID);

        ExecutionException refused = assertThrows(
                ExecutionException.class,
                () -> join(stale.commit(QUEUE, mine, sendOne(partition(mine), "old-identity-1"))));

        assertInstanceOf(IllegalStateException.class, refused.getCause());
        assertNull(messages(a).get(messageKey(mine, "old-identity-1")));
    }

    @Test
    void theOwnersDeleteRemovesTheRecordAndARefusedOneLeavesIt() throws Exception {
        int mine = InProcessCluster.partitionOwnedBy(a, QUEUE, PARTITIONS);
        Partition p = partition(mine);
        join(portOf(a).commit(QUEUE, mine, sendOne(p, "deleted-1")));
        Delivery d = p.receive(1, 30_000).get(0);
        assertTrue(p.delete(d.messageId(), d.receiptToken()));
        List<PartitionChange> deletion = p.drainChanges();

        // Through the wrong member (with the owner's records in place) the delete is refused ...
        assertThrows(
                ExecutionException.class,
                () -> join(portAs(b, () -> b.getCluster().getLocalMember().getUuid())
                        .commit(QUEUE, mine, deletion)));
        assertNotNull(messages(a).get(messageKey(mine, "deleted-1")));
        // ... and through the owner it removes the record.
        join(portOf(a).commit(QUEUE, mine, deletion));
        assertNull(messages(b).get(messageKey(mine, "deleted-1")));
    }

    /**
     * The whole path on a node whose idea of ownership is stale (here: it believes it owns every
     * partition): the request runs on its partition loop, the commit is refused on the real
     * owner, the client gets a retryable error instead of an acknowledgement, and the partition
     * is dropped so that it is rebuilt from storage before it serves again.
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
                    portOf(a),
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
            SqsException refusal = assertInstanceOf(SqsException.class, failed.getCause());
            assertEquals(ErrorCode.SERVICE_UNAVAILABLE, refusal.code(), "retryable, not acknowledged");
            assertNull(messages(b).get(messageKey(theirs, "believed-1")), "nothing stored");
            await("partition dropped after the refused commit")
                    .atMost(Duration.ofSeconds(10))
                    .until(() -> !believer.isStarted(QUEUE, theirs));
        } finally {
            join(vertx.close().toCompletionStage());
        }
    }
}
