package io.sluice.chaos;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.SqsException;

/**
 * The Kubernetes probes of real nodes (separate JVMs) as the cluster changes. Two nodes under
 * cluster-config/local.yaml (split-brain protection, minimum cluster size 2): both live and
 * ready. One is killed (kill -9): the survivor takes its partitions over but may not read their
 * backups alone, so it stays live and turns not ready (Kubernetes keeps it running and sends it
 * no clients) until a new node joins; then it is ready again. A client that sends to it anyway is
 * refused with SQS's retryable ServiceUnavailable (503), never an internal error.
 */
class ProbesIT {
    private static final HttpClient HTTP =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    private static ChaosCluster cluster;

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
        ClusterProcess.killAll();
    }

    /** The status GET {@code path} answered within 2 s, or -1 if it did not answer. */
    private static int status(ClusterProcess node, String path) {
        try {
            return HTTP.send(
                            HttpRequest.newBuilder(URI.create(node.endpoint() + path))
                                    .timeout(Duration.ofSeconds(2))
                                    .GET()
                                    .build(),
                            HttpResponse.BodyHandlers.discarding())
                    .statusCode();
        } catch (IOException e) {
            return -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }

    @Test
    @Timeout(value = 4, unit = TimeUnit.MINUTES)
    void aSurvivorWithoutItsMajorityIsLiveButNotReadyUntilAPeerJoins() {
        cluster = new ChaosCluster("ProbesIT", 3, List.of("--partitions", "8"));
        List<ClusterProcess> started = cluster.start(2);
        ClusterProcess survivor = started.get(0);
        ClusterProcess victim = started.get(1);
        // 4 queues x 8 partitions: the victim owns some of them (none of 32: about 2^-32).
        String dlqArn;
        try (SqsClient sqs = Chaos.client(survivor.endpoint(), Duration.ofSeconds(30))) {
            for (int q = 0; q < 4; q++) {
                String name = "probes-" + q;
                String url = sqs.createQueue(r -> r.queueName(name)).queueUrl();
                sqs.sendMessage(r -> r.queueUrl(url).messageBody("kept"));
            }
            // A dead-letter queue, whose messages a move task could send back.
            String dlq = sqs.createQueue(r -> r.queueName("probes-dlq")).queueUrl();
            dlqArn = Chaos.arnOf(sqs, dlq);
            sqs.createQueue(r -> r.queueName("probes-src").attributesWithStrings(Chaos.redrivingTo(dlqArn)));
        }
        await("both nodes live and ready")
                .atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(250))
                .until(() -> started.stream()
                        .allMatch(n -> status(n, "/health/live") == 200 && status(n, "/health/ready") == 200));

        victim.kill9();
        await("the survivor not ready")
                .atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(250))
                .until(() -> status(survivor, "/health/ready") == 503);
        // It stays so, and alive: nothing it can do alone makes it ready.
        await("the survivor live but not ready")
                .during(Duration.ofSeconds(5))
                .atMost(Duration.ofSeconds(15))
                .pollInterval(Duration.ofMillis(250))
                .until(() -> status(survivor, "/health/ready") == 503 && status(survivor, "/health/live") == 200);
        assertEquals(503, status(survivor, "/health"), "/health is readiness");
        // Asked anyway (a client that ignores readiness), it refuses every send, each in SQS's words.
        List<String> answers = new ArrayList<>();
        try (SqsClient sqs = Chaos.client(survivor.endpoint(), Duration.ofSeconds(30))) {
            for (int q = 0; q < 4; q++) {
                String url = Chaos.url(survivor.endpoint(), "probes-" + q);
                for (int i = 0; i < 4; i++) {
                    try {
                        sqs.sendMessage(r -> r.queueUrl(url).messageBody("refused"));
                        answers.add("200");
                    } catch (SqsException e) {
                        answers.add(e.statusCode() + " " + e.awsErrorDetails().errorCode());
                    }
                }
            }
        }
        assertTrue(
                answers.stream().allMatch(a -> a.equals("503 ServiceUnavailable")),
                "sends through the node alone: " + answers);
        // Nor does it change queues or move tasks (the other side may be the majority), though it still finds them.
        try (SqsClient sqs = Chaos.client(survivor.endpoint(), Duration.ofSeconds(30))) {
            assertTrue(sqs.getQueueUrl(r -> r.queueName("probes-0")).queueUrl().endsWith("/probes-0"));
            SqsException created =
                    assertThrows(SqsException.class, () -> sqs.createQueue(r -> r.queueName("probes-minority")));
            SqsException changed = assertThrows(
                    SqsException.class,
                    () -> sqs.setQueueAttributes(r -> r.queueUrl(Chaos.url(survivor.endpoint(), "probes-1"))
                            .attributesWithStrings(Map.of("VisibilityTimeout", "40"))));
            SqsException moved =
                    assertThrows(SqsException.class, () -> sqs.startMessageMoveTask(r -> r.sourceArn(dlqArn)));
            assertAll(
                    () -> assertEquals(503, moved.statusCode()),
                    () -> assertEquals(
                            "ServiceUnavailable", moved.awsErrorDetails().errorCode()),
                    () -> assertTrue(moved.getMessage().contains("too few of its cluster's nodes"), moved.getMessage()),
                    () -> assertEquals(503, created.statusCode()),
                    () -> assertEquals(
                            "ServiceUnavailable", created.awsErrorDetails().errorCode()),
                    () -> assertEquals(503, changed.statusCode()),
                    () -> assertEquals(
                            "ServiceUnavailable", changed.awsErrorDetails().errorCode()));
        }

        ClusterProcess joined = cluster.start(1).get(0);
        await("the survivor ready again")
                .atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(250))
                .until(() -> status(survivor, "/health/ready") == 200);
        assertAll(
                () -> assertEquals(200, status(survivor, "/health/live")),
                () -> assertEquals(200, status(joined, "/health/ready")),
                () -> assertEquals(200, status(joined, "/health/live")));
    }
}
