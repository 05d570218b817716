package io.sluice.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import io.sluice.config.ClusterSettings;
import io.sluice.partition.Ownership;
import io.sluice.partition.PartitionDirectory;
import io.sluice.partition.PartitionLoops;
import io.sluice.queue.Clock;
import io.sluice.queue.CommitPort;
import io.sluice.queue.ErrorCode;
import io.sluice.queue.InMemoryQueueRegistry;
import io.sluice.queue.MessageRecord;
import io.sluice.queue.PartitionChange;
import io.sluice.queue.PartitionRequest;
import io.sluice.queue.PartitionSnapshot;
import io.sluice.queue.QueueMeta;
import io.sluice.queue.SendOutcome;
import io.sluice.queue.SqsException;
import io.vertx.core.DeploymentOptions;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What a node answers to a partition request forwarded to it, as the forwarding router reads
 * it: the result; "moved" when it does not serve the partition (the router looks again); the
 * request's own SQS error as it is; ServiceUnavailable when storage failed (the client retries);
 * InternalFailure for a request it cannot decode. Real Vert.x event bus, real partitions, a real
 * member's serialization.
 */
class ForwardedRequestsTest {
    private static final String NODE = "node-under-test";
    private static final String QUEUE = "forwarded";

    private static HazelcastInstance hz;

    private final Vertx vertx = Vertx.vertx();
    private final AtomicBoolean owns = new AtomicBoolean(true);
    private final AtomicBoolean storageFails = new AtomicBoolean();
    private final List<Integer> commitSizes = new CopyOnWriteArrayList<>();

    /** Storage that can be made to fail, as a Hazelcast map whose partition is lost can. */
    private final CommitPort storage = new CommitPort() {
        @Override
        public CompletionStage<Void> commit(
                String queueName, int partition, long incarnation, List<PartitionChange> changes) {
            commitSizes.add(changes.size());
            return CompletableFuture.completedFuture(null);
        }

        @Override
        public CompletionStage<PartitionSnapshot> load(String queueName, int partition) {
            return storageFails.get()
                    ? CompletableFuture.failedFuture(new IllegalStateException("partition lost"))
                    : CompletableFuture.completedFuture(PartitionSnapshot.EMPTY);
        }
    };

    @BeforeAll
    static void member() {
        hz = Hazelcast.newHazelcastInstance(HazelcastSetup.config(new ClusterSettings(null, "127.0.0.1", 0, 1)));
    }

    @AfterAll
    static void shutdown() {
        hz.shutdown();
    }

    @BeforeEach
    void deploy() throws Exception {
        HazelcastMessageCodec.register(vertx.eventBus(), hz);
        InMemoryQueueRegistry registry = new InMemoryQueueRegistry(Clock.SYSTEM);
        long now = System.currentTimeMillis();
        registry.create(new QueueMeta(QUEUE, false, 2, now, now, Map.of(), Map.of(), 0))
                .toCompletableFuture()
                .join();
        Ownership ownership = (queue, partition) -> owns.get();
        PartitionDirectory directory = new PartitionDirectory(
                PartitionLoops.deploy(vertx, 1, Clock.SYSTEM).await(),
                storage,
                Clock.SYSTEM,
                registry,
                (queue, partition) -> {},
                ownership);
        join(vertx.deployVerticle(
                () -> new ForwardedRequests(directory, NODE), new DeploymentOptions().setInstances(2)));
    }

    @AfterEach
    void close() throws Exception {
        join(vertx.close());
    }

    private static <T> T join(Future<T> f) throws Exception {
        return f.toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    private ForwardedReply forward(Object body) throws Exception {
        return join(vertx.eventBus()
                .<ForwardedReply>request(ClusterRouter.address(NODE), body)
                .map(m -> m.body()));
    }

    private ForwardedReply forward(String queue, int partition, PartitionRequest<?> request) throws Exception {
        return forward(new ForwardedRequest(queue, partition, request));
    }

    private ForwardedReply forward(int partition, PartitionRequest<?> request) throws Exception {
        return forward(QUEUE, partition, request);
    }

    private static PartitionRequest.Send send() {
        return send("m-1");
    }

    private static PartitionRequest.Send send(String messageId) {
        return new PartitionRequest.Send(
                new MessageRecord(
                        messageId, "body", Map.of(), Map.of(), System.currentTimeMillis(), "sender", null, null, null),
                0);
    }

    private static ErrorCode errorOf(ForwardedReply reply) {
        assertEquals(ForwardedReply.Kind.ERROR, reply.kind());
        return assertThrows(SqsException.class, reply::get).code();
    }

    @Test
    void aServedRequestIsAnsweredWithItsResult() throws Exception {
        ForwardedReply reply = forward(0, send());
        assertEquals(ForwardedReply.Kind.RESULT, reply.kind());
        assertInstanceOf(SendOutcome.class, reply.get());
    }

    @Test
    void aBatchOfSendsIsAnsweredWithAnOutcomePerMessageInOrder() throws Exception {
        long now = System.currentTimeMillis();
        List<PartitionRequest.Send> sends = List.of("b-1", "b-2", "b-3").stream()
                .map(id -> new PartitionRequest.Send(
                        new MessageRecord(id, "body", Map.of(), Map.of(), now, "sender", null, null, null), 0))
                .toList();
        ForwardedReply reply = forward(1, new PartitionRequest.SendBatch(sends));
        assertEquals(ForwardedReply.Kind.RESULT, reply.kind());
        List<?> outcomes = assertInstanceOf(List.class, reply.get());
        assertEquals(
                List.of(
                        new SendOutcome("b-1", null, false),
                        new SendOutcome("b-2", null, false),
                        new SendOutcome("b-3", null, false)),
                outcomes);
    }

    @Test
    void aPartitionNotServedHereIsAnsweredMoved() throws Exception {
        owns.set(false);
        assertEquals(ForwardedReply.Kind.MOVED, forward(0, send()).kind());
    }

    @Test
    void theRequestsOwnErrorIsPassedOnAsItIs() throws Exception {
        ForwardedReply reply = forward(0, new PartitionRequest.ChangeVisibility("no-such-message", 1, 0, "handle"));
        assertEquals(ErrorCode.INVALID_PARAMETER_VALUE, errorOf(reply));
        assertEquals(ErrorCode.QUEUE_DOES_NOT_EXIST, errorOf(forward("no-such-queue", 0, send())));
    }

    @Test
    void aStorageFailureIsAnsweredServiceUnavailable() throws Exception {
        storageFails.set(true);
        assertEquals(ErrorCode.SERVICE_UNAVAILABLE, errorOf(forward(1, send())));
    }

    @Test
    void anUndecodableRequestIsAnsweredInternalFailure() throws Exception {
        assertEquals(ErrorCode.INTERNAL_FAILURE, errorOf(forward(Buffer.buffer(new byte[] {1, 2, 3}))));
    }

    @Test
    void aBundleIsAnsweredWithEachRequestsReplyInItsOrder() throws Exception {
        ForwardedBundle bundle = new ForwardedBundle(List.of(
                new ForwardedRequest(QUEUE, 0, send()),
                new ForwardedRequest(QUEUE, 1, new PartitionRequest.ChangeVisibility("no-such-message", 1, 0, "h")),
                new ForwardedRequest("no-such-queue", 0, send()),
                new ForwardedRequest(QUEUE, 1, send())));
        ForwardedReplies replies = join(vertx.eventBus()
                .<ForwardedReplies>request(ClusterRouter.address(NODE), bundle)
                .map(m -> m.body()));
        List<ForwardedReply> each = replies.replies();
        assertEquals(4, each.size());
        assertInstanceOf(SendOutcome.class, each.get(0).get());
        assertEquals(ErrorCode.INVALID_PARAMETER_VALUE, errorOf(each.get(1)));
        assertEquals(ErrorCode.QUEUE_DOES_NOT_EXIST, errorOf(each.get(2)));
        assertInstanceOf(SendOutcome.class, each.get(3).get());
    }

    /**
     * Each answer goes back to its own request, though a partition's requests are run as one group
     * and stored by one commit. (The partition's group commit would also make that one commit if
     * they ran one task each; what running them as a group means is pinned in PartitionHostTest.)
     */
    @Test
    void aBundlesSendsAreStoredOneCommitPerPartitionAndEachAnsweredInItsPlace() throws Exception {
        ForwardedBundle bundle = new ForwardedBundle(List.of(
                new ForwardedRequest(QUEUE, 0, send("a")),
                new ForwardedRequest(QUEUE, 1, send("b")),
                new ForwardedRequest(QUEUE, 0, send("c")),
                new ForwardedRequest(QUEUE, 0, send("d"))));
        List<ForwardedReply> each = join(vertx.eventBus()
                        .<ForwardedReplies>request(ClusterRouter.address(NODE), bundle)
                        .map(m -> m.body()))
                .replies();
        assertEquals(
                List.of("a", "b", "c", "d"),
                each.stream().map(r -> ((SendOutcome) r.get()).messageId()).toList());
        assertEquals(List.of(1, 3), commitSizes.stream().sorted().toList(), "one commit per partition");
    }

    @Test
    void aBundleForPartitionsNotServedHereIsAnsweredMovedForEach() throws Exception {
        owns.set(false);
        ForwardedBundle bundle = new ForwardedBundle(
                List.of(new ForwardedRequest(QUEUE, 0, send("a")), new ForwardedRequest(QUEUE, 1, send("b"))));
        List<ForwardedReply> each = join(vertx.eventBus()
                        .<ForwardedReplies>request(ClusterRouter.address(NODE), bundle)
                        .map(m -> m.body()))
                .replies();
        assertEquals(
                List.of(ForwardedReply.Kind.MOVED, ForwardedReply.Kind.MOVED),
                each.stream().map(ForwardedReply::kind).toList());
        assertTrue(commitSizes.isEmpty(), "nothing stored");
    }

    @Test
    void anEmptyBundleIsAnsweredAtOnce() throws Exception {
        ForwardedReplies replies = join(vertx.eventBus()
                .<ForwardedReplies>request(ClusterRouter.address(NODE), new ForwardedBundle(List.of()))
                .map(m -> m.body()));
        assertEquals(List.of(), replies.replies());
    }
}
