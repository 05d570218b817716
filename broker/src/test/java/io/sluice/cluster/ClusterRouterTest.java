package io.sluice.cluster;

import static io.sluice.cluster.InProcessCluster.join;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.cluster.InProcessCluster.Node;
import io.sluice.partition.PartitionDirectory;
import io.sluice.queue.Delivery;
import io.sluice.queue.ErrorCode;
import io.sluice.queue.MessageRecord;
import io.sluice.queue.PartitionRequest;
import io.sluice.queue.SendOutcome;
import io.sluice.queue.SqsException;
import io.vertx.core.AsyncResult;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The router of node A in a real two-node cluster (two Hazelcast members, clustered Vert.x, in
 * this JVM): a partition A owns runs on A's loop; one B owns goes to B as one event-bus request;
 * while B does not serve it (B answers "moved", or has no handler on its address) the request is
 * retried until B serves it, but only a bounded number of times; the request's own error is
 * never retried. Which member owns which partition is Hazelcast's real partition table; whether
 * B serves a partition it owns is a switch on B's ownership, as B's pause guard would turn it.
 */
class ClusterRouterTest {
    private static final String QUEUE = "routed";
    private static final int PARTITIONS = 8;

    private static InProcessCluster cluster;
    private static Node a;
    private static Node b;
    private static PartitionDirectory onA;
    private static PartitionDirectory onB;
    private static ClusterRouter router;
    private static String forwardedOnB;
    /** Whether B serves the partitions it owns. */
    private static final AtomicBoolean bServes = new AtomicBoolean(true);
    /** Requests A sent to B's address, as they leave A. */
    private static List<Object> sentToB;

    private static final AtomicInteger ids = new AtomicInteger();

    @BeforeAll
    static void start() {
        cluster = new InProcessCluster();
        a = cluster.node();
        // B acts as a node of a build that predates batched requests and bundles: it announces neither.
        b = cluster.node(c -> {
            c.getMemberAttributeConfig().removeAttribute(HazelcastOwnership.BATCHES_ATTRIBUTE);
            c.getMemberAttributeConfig().removeAttribute(HazelcastOwnership.BUNDLES_ATTRIBUTE);
            return c;
        });
        InProcessCluster.awaitSettled(a.hz());
        HazelcastOwnership ownedByA = new HazelcastOwnership(a.hz().getPartitionService());
        HazelcastOwnership ownedByB = new HazelcastOwnership(b.hz().getPartitionService());
        onA = InProcessCluster.directory(a, ownedByA, QUEUE, PARTITIONS);
        onB = InProcessCluster.directory(
                b, (queue, partition) -> bServes.get() && ownedByB.ownsLocally(queue, partition), QUEUE, PARTITIONS);
        InProcessCluster.serveForwarded(a, onA);
        forwardedOnB = InProcessCluster.serveForwarded(b, onB);
        router = InProcessCluster.router(a, onA, ownedByA, QUEUE, PARTITIONS);
        sentToB = InProcessCluster.sentTo(a, b);
    }

    @AfterAll
    static void stop() {
        cluster.close();
    }

    @BeforeEach
    void serving() {
        bServes.set(true);
    }

    private static PartitionRequest.Send send(String body) {
        return new PartitionRequest.Send(
                new MessageRecord(
                        "id-" + ids.incrementAndGet(),
                        body,
                        Map.of(),
                        Map.of(),
                        System.currentTimeMillis(),
                        "sender",
                        null,
                        null,
                        null),
                0);
    }

    /** How a request was answered, and on which context. */
    private record Answer<R>(AsyncResult<R> result, Context context) {}

    /** Runs the request through A's router from a context of A, as an HTTP verticle would. */
    private static <R> CompletableFuture<Answer<R>> route(Context caller, int partition, PartitionRequest<R> request) {
        CompletableFuture<Answer<R>> answer = new CompletableFuture<>();
        caller.runOnContext(v -> router.execute(QUEUE, partition, request)
                .onComplete(ar -> answer.complete(new Answer<>(ar, Vertx.currentContext()))));
        return answer;
    }

    private static <R> Answer<R> routed(int partition, PartitionRequest<R> request) throws Exception {
        Context caller = a.vertx().getOrCreateContext();
        Answer<R> answer = route(caller, partition, request).get(30, TimeUnit.SECONDS);
        assertSame(caller, answer.context(), "answered on the caller's context");
        return answer;
    }

    @Test
    void aBatchForAnOwnerOfAnOlderBuildTravelsAsItsParts() throws Exception {
        int ofB = InProcessCluster.partitionOwnedBy(b.hz(), QUEUE, PARTITIONS);
        List<PartitionRequest.Send> sends = List.of(send("x1"), send("x2"), send("x3"));
        int before = sentToB.size();

        List<SendOutcome> stored =
                routed(ofB, new PartitionRequest.SendBatch(sends)).result().result();

        assertEquals(
                sends.stream().map(s -> s.message().messageId()).toList(),
                stored.stream().map(SendOutcome::messageId).toList());
        assertEquals(3, sentToB.size() - before, "one request per message, as B's build knows them");
        assertEquals(3, onB.stats(QUEUE)[ofB].visible());
    }

    @Test
    void aPartitionOwnedHereRunsOnThisNode() throws Exception {
        int mine = InProcessCluster.partitionOwnedBy(a.hz(), QUEUE, PARTITIONS);
        int before = sentToB.size();

        assertTrue(routed(mine, send("local")).result().succeeded());

        assertEquals(before, sentToB.size(), "nothing forwarded");
        assertEquals(1, onA.stats(QUEUE)[mine].visible());
        assertFalse(onB.isStarted(QUEUE, mine));
    }

    @Test
    void aPartitionOwnedElsewhereIsForwardedToItsOwner() throws Exception {
        int theirs = InProcessCluster.partitionOwnedBy(b.hz(), QUEUE, PARTITIONS);

        assertTrue(routed(theirs, send("forwarded")).result().succeeded());
        List<Delivery> got = routed(theirs, new PartitionRequest.Receive(10, 30_000))
                .result()
                .result()
                .delivered();

        assertEquals(
                List.of("forwarded"), got.stream().map(Delivery::body).toList(), "stored and received on B, through A");
        assertFalse(onA.isStarted(QUEUE, theirs), "A never ran B's partition");
        assertEquals(1, onB.stats(QUEUE)[theirs].inFlight());
    }

    @Test
    void aPartitionItsOwnerDoesNotServeYetIsRetriedUntilItDoes() throws Exception {
        int theirs = InProcessCluster.partitionOwnedBy(b.hz(), QUEUE, PARTITIONS);
        bServes.set(false);
        int before = sentToB.size();

        CompletableFuture<Answer<Void>> purge =
                route(a.vertx().getOrCreateContext(), theirs, new PartitionRequest.Purge());
        await("B answered 'moved' three times")
                .atMost(Duration.ofSeconds(10))
                .until(() -> sentToB.size() - before >= 3);
        assertFalse(purge.isDone(), "still retrying, not failed");
        bServes.set(true);

        assertTrue(purge.get(30, TimeUnit.SECONDS).result().succeeded(), "served once B took the partition");
    }

    @Test
    void anOwnerWithNoHandlerOnItsAddressIsRetriedUntilItHasOne() throws Exception {
        int theirs = InProcessCluster.partitionOwnedBy(b.hz(), QUEUE, PARTITIONS);
        join(b.vertx().undeploy(forwardedOnB));
        forwardedOnB = null;
        int before = sentToB.size();
        try {
            CompletableFuture<Answer<Void>> purge =
                    route(a.vertx().getOrCreateContext(), theirs, new PartitionRequest.Purge());
            await("three requests found no handler")
                    .atMost(Duration.ofSeconds(10))
                    .until(() -> sentToB.size() - before >= 3);
            assertFalse(purge.isDone(), "still retrying, not failed");
            forwardedOnB = InProcessCluster.serveForwarded(b, onB);

            assertTrue(purge.get(30, TimeUnit.SECONDS).result().succeeded(), "served once B listens again");
        } finally {
            if (forwardedOnB == null) {
                forwardedOnB = InProcessCluster.serveForwarded(b, onB);
            }
        }
    }

    @Test
    void theRequestsOwnErrorIsAnsweredWithoutRetrying() throws Exception {
        int mine = InProcessCluster.partitionOwnedBy(a.hz(), QUEUE, PARTITIONS);
        int theirs = InProcessCluster.partitionOwnedBy(b.hz(), QUEUE, PARTITIONS);
        PartitionRequest.ChangeVisibility unknown =
                new PartitionRequest.ChangeVisibility("no-such-message", 1, 0, "handle");
        int before = sentToB.size();

        for (int partition : new int[] {mine, theirs}) {
            Answer<Void> answer = routed(partition, unknown);
            assertTrue(answer.result().failed());
            SqsException error =
                    assertInstanceOf(SqsException.class, answer.result().cause());
            assertEquals(
                    ErrorCode.INVALID_PARAMETER_VALUE,
                    error.code(),
                    "the partition's own answer, not ServiceUnavailable");
        }
        assertEquals(1, sentToB.size() - before, "one request to B, not retried");
    }

    @Test
    void retryingEndsWithServiceUnavailableAfterABoundedNumberOfAttempts() throws Exception {
        int theirs = InProcessCluster.partitionOwnedBy(b.hz(), QUEUE, PARTITIONS);
        bServes.set(false);
        int before = sentToB.size();

        Answer<Void> answer = routed(theirs, new PartitionRequest.Purge());

        SqsException error =
                assertInstanceOf(SqsException.class, answer.result().cause());
        assertEquals(ErrorCode.SERVICE_UNAVAILABLE, error.code(), "a retryable error (HTTP 503) for the client");
        int attempts = sentToB.size() - before;
        assertTrue(attempts > 1 && attempts <= ClusterRouter.MAX_ATTEMPTS, attempts + " attempts");
    }
}
