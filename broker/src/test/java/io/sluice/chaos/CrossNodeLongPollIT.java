package io.sluice.chaos;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.Message;

/**
 * A receive parked (WaitTimeSeconds 10) on node A returns within 2 s of a send through node B.
 * The queue has 8 partitions spread over 3 nodes, so the message usually lands in a partition
 * owned by neither A nor B (the wake has to cross from the owner to A); the pairs rotate.
 */
class CrossNodeLongPollIT {

    private static final int ROUNDS = 6;
    private static final long LIMIT_MS = 2_000;

    private static ChaosCluster cluster;
    private static final List<SqsClient> clients = new ArrayList<>();

    @BeforeAll
    static void startCluster() {
        cluster = new ChaosCluster("CrossNodeLongPollIT", 3, List.of("--partitions", "8"));
        cluster.start(3);
        for (ClusterProcess n : cluster.nodes()) {
            clients.add(Chaos.client(n.endpoint(), Duration.ofSeconds(30)));
        }
    }

    @AfterAll
    static void stopCluster() {
        clients.forEach(SqsClient::close);
        if (cluster != null) {
            cluster.close();
        }
        ClusterProcess.killAll();
    }

    @Test
    @Timeout(value = 3, unit = TimeUnit.MINUTES)
    void parkedReceiveWakesOnSendThroughAnotherNode() {
        String queue = "chaos-longpoll-" + Long.toHexString(System.nanoTime());
        clients.get(0).createQueue(r -> r.queueName(queue));
        for (int i = 0; i < clients.size(); i++) {
            SqsClient c = clients.get(i);
            await("queue known to node " + (i + 1))
                    .atMost(Duration.ofSeconds(30))
                    .ignoreExceptions()
                    .until(() -> c.getQueueUrl(r -> r.queueName(queue)).queueUrl() != null);
        }
        List<Long> latencies = new ArrayList<>();
        List<String> problems = new ArrayList<>();
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            for (int round = 0; round < ROUNDS; round++) {
                int a = round % 3;
                int b = (round + 1 + round / 3) % 3; // B = A+1 for the first three rounds, A+2 after
                if (b == a) {
                    b = (a + 1) % 3;
                }
                String urlA = Chaos.url(cluster.node(a).endpoint(), queue);
                String urlB = Chaos.url(cluster.node(b).endpoint(), queue);
                SqsClient clientA = clients.get(a);
                SqsClient clientB = clients.get(b);
                CompletableFuture<List<Message>> parked = CompletableFuture.supplyAsync(
                        () -> clientA.receiveMessage(r ->
                                        r.queueUrl(urlA).waitTimeSeconds(10).maxNumberOfMessages(1))
                                .messages(),
                        pool);
                // The receive stays parked (nothing to claim) for 1.5 s before we send.
                await("receive parked on node " + (a + 1))
                        .during(Duration.ofMillis(1500))
                        .atMost(Duration.ofSeconds(3))
                        .until(() -> !parked.isDone());
                String body = "wake-" + round;
                clientB.sendMessage(r -> r.queueUrl(urlB).messageBody(body));
                long sentAt = System.nanoTime();
                List<Message> got = parked.get(15, TimeUnit.SECONDS);
                long latency = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - sentAt);
                latencies.add(latency);
                if (got.size() != 1 || !body.equals(got.get(0).body())) {
                    problems.add("round " + round + " (A=node" + (a + 1) + ", B=node" + (b + 1) + "): got " + got.size()
                            + " messages " + got.stream().map(Message::body).toList());
                } else {
                    clientA.deleteMessage(
                            r -> r.queueUrl(urlA).receiptHandle(got.get(0).receiptHandle()));
                }
                if (latency > LIMIT_MS) {
                    problems.add("round " + round + " (A=node" + (a + 1) + ", B=node" + (b + 1) + "): returned "
                            + latency + " ms after the send");
                }
            }
        } catch (Exception e) {
            throw new AssertionError(
                    "long poll round failed; latencies so far " + latencies + "\n" + cluster.describe(), e);
        } finally {
            pool.shutdownNow();
        }
        Chaos.report("CrossNodeLongPollIT: wake latencies after a send through another node (ms) " + latencies
                + ", max " + latencies.stream().mapToLong(Long::longValue).max().orElse(-1));
        assertAll(
                () -> assertEquals(ROUNDS, latencies.size(), "rounds completed"),
                () -> assertTrue(problems.isEmpty(), "problems: " + problems));
    }
}
