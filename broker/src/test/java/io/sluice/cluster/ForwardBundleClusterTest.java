package io.sluice.cluster;

import static io.sluice.cluster.InProcessCluster.join;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import io.sluice.cluster.InProcessCluster.Node;
import io.sluice.partition.PartitionDirectory;
import io.sluice.queue.Delivery;
import io.sluice.queue.ErrorCode;
import io.sluice.queue.MessageRecord;
import io.sluice.queue.PartitionRequest;
import io.sluice.queue.ReceiveOutcome;
import io.sluice.queue.SendOutcome;
import io.sluice.queue.SqsException;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Node A's router forwarding to node B, both of this build, in a real two-node cluster (two
 * Hazelcast members, clustered Vert.x, in this JVM): the requests one loop of A forwards to B in
 * one turn cross as one event-bus message and each gets its own answer; a request alone crosses
 * as a plain request. What left A for B is seen by an outbound interceptor on A's event bus.
 */
class ForwardBundleClusterTest {
    private static final String QUEUE = "bundled";
    private static final int PARTITIONS = 8;

    private static InProcessCluster cluster;
    private static Node a;
    private static Node b;
    private static ClusterRouter router;
    /** The bodies A sent to B's address, in order. */
    private static List<Object> sentToB;

    @BeforeAll
    static void start() {
        cluster = new InProcessCluster();
        a = cluster.node();
        b = cluster.node();
        InProcessCluster.awaitSettled(a.hz());
        HazelcastOwnership ownedByA = new HazelcastOwnership(a.hz().getPartitionService());
        HazelcastOwnership ownedByB = new HazelcastOwnership(b.hz().getPartitionService());
        PartitionDirectory onA = InProcessCluster.directory(a, ownedByA, QUEUE, PARTITIONS);
        PartitionDirectory onB = InProcessCluster.directory(b, ownedByB, QUEUE, PARTITIONS);
        InProcessCluster.serveForwarded(b, onB);
        router = InProcessCluster.router(a, onA, ownedByA, QUEUE, PARTITIONS);
        sentToB = InProcessCluster.sentTo(a, b);
    }

    @AfterAll
    static void stop() {
        cluster.close();
    }

    private static PartitionRequest.Send send(String id) {
        return new PartitionRequest.Send(
                new MessageRecord(
                        id, "body of " + id, Map.of(), Map.of(), System.currentTimeMillis(), "s", null, null, null),
                0);
    }

    /** Routes the requests from one task on one of A's loops: they leave A in the same turn. */
    private static List<Future<?>> inOneTurn(int partition, List<PartitionRequest<?>> requests) {
        Context loop = a.vertx().getOrCreateContext();
        Promise<List<Future<?>>> routed = Promise.promise();
        loop.runOnContext(v -> {
            List<Future<?>> answers = new ArrayList<>();
            for (PartitionRequest<?> r : requests) {
                answers.add(router.execute(QUEUE, partition, r));
            }
            routed.complete(answers);
        });
        List<Future<?>> answers = join(routed.future());
        join(Future.join(answers).otherwiseEmpty());
        return answers;
    }

    @Test
    void requestsOfOneTurnCrossInOneMessageAndEachGetsItsOwnAnswer() {
        int ofB = InProcessCluster.partitionOwnedBy(b.hz(), QUEUE, PARTITIONS);
        int before = sentToB.size();
        long forwardedBefore = router.forwardedRequests();
        long messagesBefore = router.forwardMessages();

        List<Future<?>> answers = inOneTurn(
                ofB,
                List.of(
                        send("t-1"),
                        send("t-2"),
                        new PartitionRequest.ChangeVisibility("no-such-message", 1, 0, "handle"),
                        send("t-3")));

        List<Object> crossed = sentToB.subList(before, sentToB.size());
        assertEquals(1, crossed.size(), "one message for the turn: " + crossed);
        ForwardedBundle bundle = assertInstanceOf(ForwardedBundle.class, crossed.get(0));
        assertEquals(4, bundle.requests().size());
        assertEquals(4, router.forwardedRequests() - forwardedBefore);
        assertEquals(1, router.forwardMessages() - messagesBefore);

        assertEquals("t-1", ((SendOutcome) answers.get(0).result()).messageId());
        assertEquals("t-2", ((SendOutcome) answers.get(1).result()).messageId());
        assertEquals(
                ErrorCode.INVALID_PARAMETER_VALUE,
                assertInstanceOf(SqsException.class, answers.get(2).cause()).code(),
                "the request's own error, not the bundle's");
        assertEquals("t-3", ((SendOutcome) answers.get(3).result()).messageId());

        Future<?> received = inOneTurn(ofB, List.of(new PartitionRequest.Receive(10, 30_000)))
                .get(0);
        List<Delivery> delivered = ((ReceiveOutcome) received.result()).delivered();
        assertEquals(
                List.of("t-1", "t-2", "t-3"),
                delivered.stream()
                        .map(Delivery::messageId)
                        .filter(id -> id.startsWith("t-"))
                        .sorted()
                        .toList(),
                "stored on B");
    }

    @Test
    void aRequestAloneInItsTurnCrossesAsAPlainRequest() {
        int ofB = InProcessCluster.partitionOwnedBy(b.hz(), QUEUE, PARTITIONS);
        int before = sentToB.size();

        Future<?> answer = inOneTurn(ofB, List.of(send("alone"))).get(0);

        assertEquals("alone", ((SendOutcome) answer.result()).messageId());
        List<Object> crossed = sentToB.subList(before, sentToB.size());
        assertEquals(1, crossed.size());
        assertInstanceOf(ForwardedRequest.class, crossed.get(0));
    }
}
