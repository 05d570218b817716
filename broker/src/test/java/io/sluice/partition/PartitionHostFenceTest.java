package io.sluice.partition;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.queue.Clock;
import io.sluice.queue.CommitPort;
import io.sluice.queue.Delivery;
import io.sluice.queue.ErrorCode;
import io.sluice.queue.InMemoryQueueRegistry;
import io.sluice.queue.MessageRecord;
import io.sluice.queue.PartitionChange;
import io.sluice.queue.PartitionRequest;
import io.sluice.queue.PartitionSnapshot;
import io.sluice.queue.QueueMeta;
import io.sluice.queue.ReceiveOutcome;
import io.sluice.queue.SendOutcome;
import io.sluice.queue.SqsException;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The partition's side of the commit fence: a client is told "done" only for a change that
 * storage took while this node still owned the partition. A commit that completes after the
 * partition moved away, or that storage refused, is answered with a retryable error, and the
 * partition is dropped so that it is rebuilt from storage before it serves again; so is a partition
 * that was lost even for a moment. What no storage took is not failed at the client but handed back
 * as {@link PartitionMoved}, which the router retries at the owner: the requests applied while a
 * failed commit was under way, and all of a commit that storage refused because the partition has
 * a new owner.
 * Real Vert.x loops and partitions; storage is a port whose commits the test completes or fails.
 */
class PartitionHostFenceTest {
    private static final String QUEUE = "q";

    private final Vertx vertx = Vertx.vertx();
    private final AtomicBoolean owned = new AtomicBoolean(true);
    private final List<CompletableFuture<Void>> heldCommits = new CopyOnWriteArrayList<>();
    private final AtomicInteger loads = new AtomicInteger();
    private final AtomicInteger ids = new AtomicInteger();

    /** Storage whose every commit waits for the test to complete or fail it. */
    private final CommitPort storage = new CommitPort() {
        @Override
        public CompletionStage<Void> commit(
                String queueName, int partition, long incarnation, List<PartitionChange> changes) {
            CompletableFuture<Void> f = new CompletableFuture<>();
            heldCommits.add(f);
            return f;
        }

        @Override
        public CompletionStage<PartitionSnapshot> load(String queueName, int partition) {
            loads.incrementAndGet();
            return CompletableFuture.completedFuture(PartitionSnapshot.EMPTY);
        }
    };

    private final PartitionDirectory directory = directory((queue, partition) -> owned.get());

    private PartitionDirectory directory(Ownership ownership) {
        InMemoryQueueRegistry registry = new InMemoryQueueRegistry(Clock.SYSTEM);
        long now = System.currentTimeMillis();
        registry.create(new QueueMeta(QUEUE, false, 1, now, now, Map.of(), Map.of(), 0))
                .toCompletableFuture()
                .join();
        return new PartitionDirectory(
                PartitionLoops.deploy(vertx, 1, Clock.SYSTEM).await(),
                storage,
                Clock.SYSTEM,
                registry,
                (queue, partition) -> {},
                ownership);
    }

    @AfterEach
    void close() throws Exception {
        vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    private PartitionRequest.Send sendRequest() {
        return new PartitionRequest.Send(
                new MessageRecord(
                        "m-" + ids.incrementAndGet(),
                        "body",
                        Map.of(),
                        Map.of(),
                        System.currentTimeMillis(),
                        "sender",
                        null,
                        null,
                        null),
                0);
    }

    private Future<SendOutcome> send() {
        return directory.execute(QUEUE, 0, sendRequest());
    }

    private static Throwable failureOf(Future<?> f) {
        await("answered").atMost(Duration.ofSeconds(10)).until(f::isComplete);
        assertTrue(f.failed(), "not acknowledged");
        return f.cause();
    }

    private static void assertRetryable(Future<?> f) {
        SqsException e = assertInstanceOf(SqsException.class, failureOf(f));
        assertEquals(ErrorCode.SERVICE_UNAVAILABLE, e.code());
    }

    private CompletableFuture<Void> commitUnderWay(int n) {
        await("commit " + n + " under way").atMost(Duration.ofSeconds(10)).until(() -> heldCommits.size() >= n);
        return heldCommits.get(n - 1);
    }

    @Test
    void aCommitThatCompletesAfterThePartitionMovedAwayIsNotAcknowledged() {
        Future<SendOutcome> send = send();
        CompletableFuture<Void> commit = commitUnderWay(1);

        owned.set(false);
        commit.complete(null);

        assertRetryable(send);
        await("partition dropped").atMost(Duration.ofSeconds(10)).until(() -> !directory.isStarted(QUEUE, 0));
        assertInstanceOf(PartitionMoved.class, failureOf(send()), "later requests go to the new owner");
    }

    @Test
    void aCommitStorageRefusedIsNotAcknowledgedAndThePartitionIsRebuilt() {
        Future<SendOutcome> first = send();
        commitUnderWay(1).completeExceptionally(new IllegalStateException("backup acks missed"));

        assertRetryable(first);
        await("partition dropped").atMost(Duration.ofSeconds(10)).until(() -> !directory.isStarted(QUEUE, 0));
        assertEquals(1, loads.get());

        Future<SendOutcome> second = send();
        commitUnderWay(2).complete(null);
        await("acknowledged").atMost(Duration.ofSeconds(10)).until(second::succeeded);
        assertEquals(2, loads.get(), "rebuilt from storage before serving again");
    }

    @Test
    void noRequestWhoseChangeStorageRefusedIsAcknowledged() {
        // However the loop batches them, every commit is refused.
        List<Future<SendOutcome>> sends = List.of(send(), send(), send(), send());
        await("all answered").atMost(Duration.ofSeconds(10)).until(() -> {
            heldCommits.forEach(f -> f.completeExceptionally(new IllegalStateException("refused")));
            return sends.stream().allMatch(Future::isComplete);
        });

        // A 503 for what a refused commit carried, PartitionMoved (the router retries) for what none did.
        assertRetryable(sends.get(0)); // the first commit carried at least the first send
        sends.forEach(f -> {
            Throwable err = failureOf(f);
            assertTrue(
                    err instanceof PartitionMoved
                            || err instanceof SqsException e && e.code() == ErrorCode.SERVICE_UNAVAILABLE,
                    "not acknowledged, retryable: " + err);
        });
    }

    @Test
    void requestsAppliedWhileARefusedCommitWasUnderWayAreRefusedAndNothingMoreIsWritten() {
        Future<SendOutcome> first = send();
        CompletableFuture<Void> commit = commitUnderWay(1);
        List<Future<SendOutcome>> meanwhile = List.of(send(), send(), send());
        await("applied meanwhile").atMost(Duration.ofSeconds(10)).until(() -> directory.stats(QUEUE)[0].visible() == 4);

        commit.completeExceptionally(new IllegalStateException("refused"));

        assertRetryable(first);
        meanwhile.forEach(f -> assertInstanceOf(
                PartitionMoved.class, failureOf(f), "written nowhere: run again wherever the partition is"));
        assertEquals(1, heldCommits.size(), "memory that may differ from storage writes nothing more");
    }

    @Test
    void aCommitRefusedBecauseThePartitionMovedSendsItsRequestsToTheNewOwner() {
        Future<SendOutcome> first = send();
        CompletableFuture<Void> commit = commitUnderWay(1);
        Future<SendOutcome> meanwhile = send();
        await("applied meanwhile").atMost(Duration.ofSeconds(10)).until(() -> directory.stats(QUEUE)[0].visible() == 2);

        // What HazelcastCommitPort answers when the store's new primary refused a commit of its old owner.
        commit.completeExceptionally(new PartitionMoved(QUEUE, 0));

        assertInstanceOf(PartitionMoved.class, failureOf(first), "refused, so written nowhere");
        assertInstanceOf(PartitionMoved.class, failureOf(meanwhile));
        await("partition dropped").atMost(Duration.ofSeconds(10)).until(() -> !directory.isStarted(QUEUE, 0));
        assertEquals(1, heldCommits.size(), "memory that may differ from storage writes nothing more");
    }

    @Test
    void aSendRunAgainAfterARefusedCommitIsStoredAfreshAtTheRebuiltPartition() {
        Future<SendOutcome> first = send();
        CompletableFuture<Void> commit = commitUnderWay(1);
        PartitionRequest.Send again = sendRequest();
        Future<SendOutcome> meanwhile = directory.execute(QUEUE, 0, again);
        Future<ReceiveOutcome> receivedMeanwhile =
                directory.execute(QUEUE, 0, new PartitionRequest.Receive(10, 30_000));
        await("applied meanwhile")
                .atMost(Duration.ofSeconds(10))
                .until(() -> directory.stats(QUEUE)[0].inFlight() == 2);

        commit.completeExceptionally(new PartitionMoved(QUEUE, 0));
        assertInstanceOf(PartitionMoved.class, failureOf(first));
        assertInstanceOf(PartitionMoved.class, failureOf(meanwhile));
        assertInstanceOf(PartitionMoved.class, failureOf(receivedMeanwhile));
        await("partition dropped").atMost(Duration.ofSeconds(10)).until(() -> !directory.isStarted(QUEUE, 0));

        // The router runs the same request object again at the owner (here the rebuilt partition): what
        // the thrown-away memory did to its message (received, in flight) must not come along (stop 24).
        Future<SendOutcome> retried = directory.execute(QUEUE, 0, again);
        commitUnderWay(2).complete(null);
        await("acknowledged").atMost(Duration.ofSeconds(10)).until(retried::succeeded);
        Future<ReceiveOutcome> received = directory.execute(QUEUE, 0, new PartitionRequest.Receive(10, 30_000));
        commitUnderWay(3).complete(null);
        await("received").atMost(Duration.ofSeconds(10)).until(received::isComplete);
        assertTrue(received.succeeded(), () -> "receive failed: " + received.cause());
        List<Delivery> delivered = received.result().delivered();
        assertEquals(
                List.of(again.message().messageId()),
                delivered.stream().map(Delivery::messageId).toList());
        assertEquals(1, delivered.get(0).receiveCount(), "received once where it is stored");
    }

    @Test
    void aPartitionLostForAMomentIsRebuiltNotReused() {
        AtomicInteger askedWhileLost = new AtomicInteger();
        PartitionDirectory d = directory((queue, partition) -> {
            if (owned.get()) {
                return true;
            }
            askedWhileLost.incrementAndGet();
            return false;
        });
        Future<SendOutcome> before = d.execute(QUEUE, 0, sendRequest());
        commitUnderWay(1).complete(null);
        await("acknowledged").atMost(Duration.ofSeconds(10)).until(before::succeeded);

        // Lost, and back before anything but the partition's own tick has looked: another owner may
        // have changed it meanwhile, so its memory must not serve again.
        owned.set(false);
        await("the partition's tick saw it lost").atMost(Duration.ofSeconds(10)).until(() -> askedWhileLost.get() >= 1);
        owned.set(true);
        Future<SendOutcome> after = d.execute(QUEUE, 0, sendRequest());
        commitUnderWay(2).complete(null);

        await("acknowledged").atMost(Duration.ofSeconds(10)).until(after::succeeded);
        assertEquals(2, loads.get(), "rebuilt from storage");
    }

    @Test
    void aCommitThatCompletesWhileStillOwnedIsAcknowledged() {
        Future<SendOutcome> send = send();
        CompletableFuture<Void> commit = commitUnderWay(1);
        assertFalse(send.isComplete(), "not before the commit");
        commit.complete(null);
        await("acknowledged").atMost(Duration.ofSeconds(10)).until(send::succeeded);
        assertTrue(directory.isStarted(QUEUE, 0));
    }
}
