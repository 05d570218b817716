package io.sluice.partition;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.queue.Clock;
import io.sluice.queue.CommitPort;
import io.sluice.queue.Delivery;
import io.sluice.queue.ErrorCode;
import io.sluice.queue.InMemoryQueueRegistry;
import io.sluice.queue.MessageRecord;
import io.sluice.queue.MessageState;
import io.sluice.queue.PartitionChange;
import io.sluice.queue.PartitionRequest;
import io.sluice.queue.PartitionSnapshot;
import io.sluice.queue.QueueMeta;
import io.sluice.queue.ReceiveOutcome;
import io.sluice.queue.SendOutcome;
import io.sluice.queue.SqsException;
import io.sluice.queue.StoredMessage;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Partitions on real Vert.x event loops: batched commits, answers after the commit, wakes. */
class PartitionHostTest {
    private final Vertx vertx = Vertx.vertx();
    private final List<Integer> batchSizes = new CopyOnWriteArrayList<>();
    private final List<List<PartitionChange>> committed = new CopyOnWriteArrayList<>();
    private final List<CompletableFuture<Void>> pendingCommits = new CopyOnWriteArrayList<>();
    private volatile boolean holdCommits;
    private final AtomicInteger wakes = new AtomicInteger();
    private InMemoryQueueRegistry registry;
    private final QueueMeta meta = new QueueMeta("q", false, 1, 0, 0, Map.of(), Map.of(), 0);
    /** What the port's replica holds for the partition when it is loaded. */
    private volatile PartitionSnapshot stored = PartitionSnapshot.EMPTY;

    private final CommitPort recordingPort = new CommitPort() {
        @Override
        public CompletionStage<Void> commit(
                String queueName, int partition, long incarnation, List<PartitionChange> changes) {
            batchSizes.add(changes.size());
            committed.add(List.copyOf(changes));
            CompletableFuture<Void> f = new CompletableFuture<>();
            if (holdCommits) {
                pendingCommits.add(f);
            } else {
                f.complete(null);
            }
            return f;
        }

        @Override
        public CompletionStage<PartitionSnapshot> load(String queueName, int partition) {
            return CompletableFuture.completedFuture(stored);
        }
    };

    private PartitionDirectory directory() throws Exception {
        InMemoryQueueRegistry registry = new InMemoryQueueRegistry(Clock.SYSTEM);
        registry.create(meta).toCompletableFuture().join();
        this.registry = registry;
        return new PartitionDirectory(
                await(PartitionLoops.deploy(vertx, 2, Clock.SYSTEM)),
                recordingPort,
                Clock.SYSTEM,
                registry,
                (queue, partition) -> wakes.incrementAndGet(),
                Ownership.ALWAYS);
    }

    private static MessageRecord message(int i) {
        return new MessageRecord(
                "m" + i, "body" + i, Map.of(), Map.of(), System.currentTimeMillis(), "s", null, null, null);
    }

    private static <T> T await(Future<T> f) throws Exception {
        return f.toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    @AfterEach
    void close() throws Exception {
        await(vertx.close());
    }

    @Test
    void requestsOfOneLoopTurnShareOneCommit() throws Exception {
        PartitionDirectory d = directory();
        List<Future<SendOutcome>> sends = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            sends.add(d.execute("q", 0, new PartitionRequest.Send(message(i), 0)));
        }
        await(Future.all(sends));
        assertEquals(200, batchSizes.stream().mapToInt(Integer::intValue).sum(), "every change committed");
        assertTrue(batchSizes.size() < 200, "changes were batched: " + batchSizes.size() + " commits");
        assertTrue(wakes.get() > 0, "waiters were told of visible messages");
    }

    @Test
    void callsForOnePartitionRunTogetherShareOneCommitKeepTheirOwnErrorsAndAnswerOnTheCaller() throws Exception {
        PartitionDirectory d = directory();
        List<PartitionCall<?>> calls = List.of(
                new PartitionCall<>(new PartitionRequest.Send(message(1), 0)),
                new PartitionCall<>(new PartitionRequest.ChangeVisibility("m1", 1, 0, "handle")),
                new PartitionCall<>(new PartitionRequest.Send(message(2), 0)));
        Context caller = vertx.getOrCreateContext();
        List<Boolean> onCaller = new CopyOnWriteArrayList<>();
        calls.forEach(c -> c.future().onComplete(ar -> onCaller.add(Vertx.currentContext() == caller)));
        caller.runOnContext(v -> d.executeAll("q", 0, calls));

        assertEquals("m1", ((SendOutcome) await(calls.get(0).future())).messageId());
        assertEquals("m2", ((SendOutcome) await(calls.get(2).future())).messageId());
        Awaitility.await()
                .atMost(10, TimeUnit.SECONDS)
                .until(() -> calls.get(1).future().isComplete());
        Throwable own = calls.get(1).future().cause();
        assertTrue(
                own instanceof SqsException e && e.code() == ErrorCode.INVALID_PARAMETER_VALUE,
                "the failing call keeps its own error: " + own);
        assertEquals(List.of(2), batchSizes, "one commit for the group's two sends");
        Awaitility.await().atMost(10, TimeUnit.SECONDS).until(() -> onCaller.size() == 3);
        assertEquals(List.of(true, true, true), onCaller, "every call answered on the caller's context");
    }

    @Test
    void callsForAPartitionNotOwnedHereAreEachAnsweredMoved() throws Exception {
        InMemoryQueueRegistry registry = new InMemoryQueueRegistry(Clock.SYSTEM);
        registry.create(new QueueMeta("q", false, 1, 0, 0, Map.of(), Map.of(), 0))
                .toCompletableFuture()
                .join();
        PartitionDirectory d = new PartitionDirectory(
                await(PartitionLoops.deploy(vertx, 2, Clock.SYSTEM)),
                recordingPort,
                Clock.SYSTEM,
                registry,
                (queue, partition) -> {},
                (queue, partition) -> false);
        List<PartitionCall<?>> calls = List.of(
                new PartitionCall<>(new PartitionRequest.Send(message(1), 0)),
                new PartitionCall<>(new PartitionRequest.Send(message(2), 0)));
        d.executeAll("q", 0, calls);
        for (PartitionCall<?> c : calls) {
            assertTrue(c.future().failed() && c.future().cause() instanceof PartitionMoved, "moved");
        }
        assertTrue(batchSizes.isEmpty(), "nothing stored");
    }

    @Test
    void aBatchIsStoredInOrderByOneCommitAndARetryStoresNothingTwice() throws Exception {
        PartitionDirectory d = directory();
        List<PartitionRequest.Send> sends = List.of(
                new PartitionRequest.Send(message(1), 0),
                new PartitionRequest.Send(message(2), 0),
                new PartitionRequest.Send(message(3), 0));
        List<SendOutcome> stored = await(d.execute("q", 0, new PartitionRequest.SendBatch(sends)));
        assertEquals(
                List.of("m1", "m2", "m3"),
                stored.stream().map(SendOutcome::messageId).toList());
        assertTrue(stored.stream().noneMatch(SendOutcome::duplicate));
        assertEquals(List.of(3), batchSizes, "one commit for the batch");

        List<SendOutcome> retried = await(d.execute("q", 0, new PartitionRequest.SendBatch(sends)));
        assertTrue(retried.stream().allMatch(SendOutcome::duplicate), "a retry finds every message stored");
        List<Delivery> got = await(d.execute("q", 0, new PartitionRequest.Receive(10, 30_000)))
                .delivered();
        assertEquals(
                List.of("body1", "body2", "body3"),
                got.stream().map(Delivery::body).toList());
    }

    @Test
    void aBatchOfDeletesAnswersEachByOneCommit() throws Exception {
        PartitionDirectory d = directory();
        await(d.execute(
                "q",
                0,
                new PartitionRequest.SendBatch(
                        List.of(new PartitionRequest.Send(message(1), 0), new PartitionRequest.Send(message(2), 0)))));
        List<Delivery> got = await(d.execute("q", 0, new PartitionRequest.Receive(10, 30_000)))
                .delivered();
        assertEquals(2, got.size());
        batchSizes.clear();
        List<Boolean> deleted = await(d.execute(
                "q",
                0,
                new PartitionRequest.DeleteBatch(List.of(
                        new PartitionRequest.Delete(
                                got.get(0).messageId(), got.get(0).receiptToken()),
                        new PartitionRequest.Delete(
                                got.get(1).messageId(), got.get(1).receiptToken() + 1),
                        new PartitionRequest.Delete("no-such-message", 1)))));
        assertEquals(List.of(true, false, false), deleted, "a stale token and an unknown message delete nothing");
        assertEquals(1, batchSizes.size(), "one commit for the batch: " + batchSizes);
        assertEquals(1, d.stats("q")[0].inFlight());
    }

    @Test
    void clientIsAnsweredOnlyAfterTheCommitCompletes() throws Exception {
        PartitionDirectory d = directory();
        holdCommits = true;
        Future<SendOutcome> send = d.execute("q", 0, new PartitionRequest.Send(message(1), 0));
        Awaitility.await().atMost(5, TimeUnit.SECONDS).until(() -> !pendingCommits.isEmpty());
        assertFalse(send.isComplete(), "not answered before the commit");
        holdCommits = false;
        pendingCommits.forEach(f -> f.complete(null));
        await(send);
        List<Delivery> got = await(d.execute("q", 0, new PartitionRequest.Receive(10, 30_000)))
                .delivered();
        assertEquals(1, got.size());
        assertEquals(1, d.stats("q")[0].inFlight());
    }

    @Test
    void answersArriveOnTheCallersContext() throws Exception {
        PartitionDirectory d = directory();
        Context caller = vertx.getOrCreateContext();
        List<Boolean> onCaller = new CopyOnWriteArrayList<>();
        CompletableFuture<Void> done = new CompletableFuture<>();
        caller.runOnContext(v -> {
            // The first request finds the partition loading; the second finds it running.
            Future<SendOutcome> first = d.execute("q", 0, new PartitionRequest.Send(message(1), 0));
            first.onComplete(ar -> {
                onCaller.add(Vertx.currentContext() == caller);
                d.execute("q", 0, new PartitionRequest.Receive(1, 30_000)).onComplete(r -> {
                    onCaller.add(Vertx.currentContext() == caller
                            && r.succeeded()
                            && r.result().delivered().size() == 1);
                    done.complete(null);
                });
            });
        });
        done.get(10, TimeUnit.SECONDS);
        assertEquals(List.of(true, true), onCaller);
    }

    @Test
    void deletedQueueFailsLaterRequests() throws Exception {
        PartitionDirectory d = directory();
        registry.delete("q").toCompletableFuture().join();
        d.forget(meta);
        Future<ReceiveOutcome> f = d.execute("q", 0, new PartitionRequest.Receive(1, 1000));
        Awaitility.await().atMost(5, TimeUnit.SECONDS).until(f::isComplete);
        assertTrue(f.failed());
    }

    /**
     * A deleted queue's partition removes what it stored, in a commit after the one under way: a
     * send applied just before the deletion's news is removed from storage too.
     */
    @Test
    void aDeletedQueuesPartitionCommitsTheRemovalOfWhatItHeldAfterTheCommitUnderWay() throws Exception {
        PartitionDirectory d = directory();
        await(d.execute("q", 0, new PartitionRequest.Send(message(1), 0)));
        holdCommits = true;
        Future<SendOutcome> racing = d.execute("q", 0, new PartitionRequest.Send(message(2), 0));
        Awaitility.await().atMost(5, TimeUnit.SECONDS).until(() -> !pendingCommits.isEmpty());
        int before = committed.size();
        registry.delete("q").toCompletableFuture().join();
        d.forget(meta);
        Awaitility.await()
                .during(200, TimeUnit.MILLISECONDS)
                .atMost(2, TimeUnit.SECONDS)
                .until(() -> committed.size() == before);
        holdCommits = false;
        pendingCommits.forEach(f -> f.complete(null));
        await(racing);
        Awaitility.await().atMost(5, TimeUnit.SECONDS).until(() -> committed.size() == before + 1);
        List<String> removed = committed.get(before).stream()
                .filter(c -> c instanceof PartitionChange.MessageRemoved)
                .map(c -> ((PartitionChange.MessageRemoved) c).messageId())
                .sorted()
                .toList();
        assertEquals(List.of("m1", "m2"), removed);
    }

    @Test
    void knownEmptyFollowsTheVisibleCountAndIsFalseForAPartitionNotRunning() throws Exception {
        PartitionDirectory d = directory();
        assertFalse(d.knownEmpty("q", 0), "not started here: not known");
        await(d.execute("q", 0, new PartitionRequest.Send(message(1), 0)));
        assertFalse(d.knownEmpty("q", 0), "holds a visible message");
        await(d.execute("q", 0, new PartitionRequest.Receive(1, 30_000)));
        assertTrue(d.knownEmpty("q", 0), "its only message is in flight");
        await(d.execute("q", 0, new PartitionRequest.Send(message(2), 60_000)));
        assertTrue(d.knownEmpty("q", 0), "a delayed message is not visible");
    }
    /**
     * A partition of a deleted queue that this node owns but does not run (it came here after
     * DeleteQueue's purge, or its host broke) is loaded from its replica and what that holds is
     * removed in a commit.
     */
    @Test
    void aDeletedQueuesPartitionOwnedButNotRunningHereIsLoadedToEraseWhatItsReplicaHolds() throws Exception {
        PartitionDirectory d = directory();
        stored = new PartitionSnapshot(
                List.of(new StoredMessage(
                        "left",
                        "body",
                        Map.of(),
                        Map.of(),
                        1,
                        "s",
                        null,
                        null,
                        null,
                        null,
                        MessageState.VISIBLE,
                        0,
                        0,
                        0,
                        0,
                        0)),
                Map.of(),
                Map.of());
        registry.delete("q").toCompletableFuture().join();
        d.forget(meta);
        Awaitility.await().atMost(5, TimeUnit.SECONDS).until(() -> committed.size() == 1);
        assertEquals(
                List.of("left"),
                committed.get(0).stream()
                        .filter(c -> c instanceof PartitionChange.MessageRemoved)
                        .map(c -> ((PartitionChange.MessageRemoved) c).messageId())
                        .toList());
        assertFalse(d.isStarted("q", 0), "the erased partition is not kept running");
    }
}
