package io.sluice.chaos;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.MessageSystemAttributeName;

/**
 * Three nodes under a steady load through all three; {@code kill -9} one of them mid-load.
 * Nothing acknowledged may be lost, FIFO order must hold, no deleted FIFO message may come back, the
 * messages held in flight when the node died must come back after (never before) their visibility
 * timeout, every FIFO group must have a send acknowledged again within 20 s of the kill
 * ({@code RECOVERY_LIMIT_MS}), and the survivors must report healthy within 60 s of it.
 */
class NodeLossIT {

    private static final int IN_FLIGHT_MESSAGES = 48;
    // Long enough that every probe message can be taken in flight (a long poll claims the queue's partitions one
    // after the other, each claim a forwarded, replicated commit) on a loaded 2-core machine before the first
    // of them comes back.
    private static final int IN_FLIGHT_VISIBILITY_S = 15;
    private static final long KILL_AT_MS = 10_000;
    // Failover of the dead node's partitions waits for the heartbeat timeout (10 s); a gained partition then
    // waits 1.5 s to settle before it is rebuilt, and forwarded calls retry for up to 8 s meanwhile. 20 s leaves
    // room for the load of the 2-core CI machine.
    private static final long RECOVERY_LIMIT_MS = 20_000;

    private static ChaosCluster cluster;

    @BeforeAll
    static void startCluster() {
        cluster = new ChaosCluster("NodeLossIT", 3, List.of());
        cluster.start(3);
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
        ClusterProcess.killAll();
    }

    @Test
    @Timeout(value = 4, unit = TimeUnit.MINUTES)
    void killNineUnderLoadLosesNothing() {
        ClusterProcess victim = cluster.node(0);
        List<ClusterProcess> survivors = List.of(cluster.node(1), cluster.node(2));
        List<String> endpoints =
                cluster.nodes().stream().map(ClusterProcess::endpoint).toList();

        try (LoadChecker load = new LoadChecker("kill9", endpoints, LoadChecker.Options.defaults());
                SqsClient probe = Chaos.client(survivors.get(0).endpoint(), Duration.ofSeconds(10))) {
            // A queue whose messages are held in flight (5 s visibility, never deleted) when the node dies.
            String inflightQueue = "chaos-inflight-" + Long.toHexString(System.nanoTime());
            probe.createQueue(r -> r.queueName(inflightQueue));
            String probeUrl = Chaos.url(survivors.get(0).endpoint(), inflightQueue);
            for (int i = 0; i < IN_FLIGHT_MESSAGES; i++) {
                String body = "inflight-" + i;
                probe.sendMessage(r -> r.queueUrl(probeUrl).messageBody(body));
            }

            load.start();
            Chaos.runLoadUntil(load, KILL_AT_MS - 1_000);

            // Take every probe message in flight, then kill at once.
            Map<String, Long> firstReceiveStart = new HashMap<>();
            await("all in-flight probe messages received")
                    .atMost(Duration.ofSeconds(12))
                    .pollInterval(Duration.ofMillis(10))
                    .until(() -> {
                        long start = load.now();
                        for (Message m : probe.receiveMessage(r -> r.queueUrl(probeUrl)
                                        .maxNumberOfMessages(10)
                                        .visibilityTimeout(IN_FLIGHT_VISIBILITY_S)
                                        .waitTimeSeconds(1))
                                .messages()) {
                            firstReceiveStart.putIfAbsent(m.body(), start);
                        }
                        return firstReceiveStart.size() == IN_FLIGHT_MESSAGES;
                    });

            long killAt = load.now();
            victim.kill9();
            load.removeNode(victim.endpoint());
            Chaos.report("NodeLossIT: kill -9 " + victim + " at " + killAt + " ms into the load");

            // The held messages come back after their visibility timeout, through a surviving node.
            Map<String, Long> backAt = new HashMap<>();
            Map<String, Integer> backCount = new HashMap<>();
            List<String> early = new ArrayList<>();
            try {
                await("in-flight probe messages back")
                        .atMost(Duration.ofSeconds(45))
                        .pollInterval(Duration.ofMillis(10))
                        .ignoreExceptions()
                        .until(() -> {
                            List<Message> got = probe.receiveMessage(r -> r.queueUrl(probeUrl)
                                            .maxNumberOfMessages(10)
                                            .visibilityTimeout(120)
                                            .waitTimeSeconds(1)
                                            .messageSystemAttributeNames(
                                                    MessageSystemAttributeName.APPROXIMATE_RECEIVE_COUNT))
                                    .messages();
                            long end = load.now();
                            for (Message m : got) {
                                Long first = firstReceiveStart.get(m.body());
                                if (first != null && end < first + IN_FLIGHT_VISIBILITY_S * 1000L) {
                                    early.add(m.body() + " back after " + (end - first) + " ms");
                                }
                                backAt.putIfAbsent(m.body(), end);
                                backCount.putIfAbsent(
                                        m.body(),
                                        Integer.parseInt(
                                                m.attributesAsStrings().getOrDefault("ApproximateReceiveCount", "0")));
                            }
                            return backAt.size() >= IN_FLIGHT_MESSAGES;
                        });
            } catch (ConditionTimeoutException e) {
                // asserted below
            }
            long lastBack =
                    backAt.values().stream().mapToLong(t -> t - killAt).max().orElse(-1);
            Chaos.report("NodeLossIT: in-flight messages back " + backAt.size() + "/" + IN_FLIGHT_MESSAGES + ", last "
                    + lastBack + " ms after the kill, early " + early);

            long survivorsHealthyAt = -1;
            try {
                await("survivors healthy")
                        .atMost(Duration.ofSeconds(60))
                        .pollInterval(Duration.ofMillis(250))
                        .until(() -> survivors.stream().allMatch(ClusterProcess::healthy));
                survivorsHealthyAt = load.now() - killAt;
            } catch (ConditionTimeoutException e) {
                // asserted below
            }

            LoadChecker.Report report = load.finish();
            long recovered = load.recoveredAfter(killAt);
            List<Integer> silent = load.groupsSilentAfter(killAt, RECOVERY_LIMIT_MS);
            Chaos.report("NodeLossIT: " + report);
            Chaos.report("NodeLossIT: every FIFO group acknowledged again " + recovered + " ms after the kill; "
                    + "survivors healthy " + survivorsHealthyAt + " ms after the kill; max gap without any "
                    + "successful request " + report.maxNoSuccessGapMs() + " ms");

            long survivorsHealthy = survivorsHealthyAt;
            assertAll(
                    () -> assertEquals(
                            0, report.stdLost(), "standard messages acknowledged but never received: " + report),
                    () -> assertEquals(
                            0, report.fifoLost(), "FIFO messages acknowledged but never received: " + report),
                    () -> assertEquals(0, report.fifoOrderViolations(), "FIFO order: " + report.violationSample()),
                    () -> assertEquals(
                            0,
                            report.fifoDeletedCameBack(),
                            "deleted FIFO messages came back: " + report.violationSample()),
                    () -> assertEquals(
                            0,
                            report.fifoStoredTwice(),
                            "FIFO sends retried by the client and stored twice: " + report.violationSample()),
                    () -> assertTrue(
                            report.acked() > 0
                                    && report.stdAcked() == report.stdSent()
                                    && report.fifoAcked() == report.fifoSent(),
                            "every send acknowledged in the end (through some node): " + report),
                    () -> assertEquals(
                            IN_FLIGHT_MESSAGES,
                            backAt.size(),
                            "in-flight messages back after their visibility timeout: " + backAt.size() + "; missing "
                                    + missing(firstReceiveStart, backAt)),
                    () -> assertTrue(
                            early.isEmpty(), "in-flight messages came back before their visibility timeout: " + early),
                    () -> assertTrue(
                            backCount.values().stream().allMatch(c -> c >= 2),
                            "ApproximateReceiveCount of re-delivered in-flight messages >= 2: " + backCount),
                    () -> assertTrue(
                            recovered >= 0 && recovered <= RECOVERY_LIMIT_MS,
                            "every FIFO group acknowledged again within " + RECOVERY_LIMIT_MS + " ms of the kill: "
                                    + recovered + " ms"),
                    () -> assertTrue(
                            silent.isEmpty(),
                            "FIFO groups with no acknowledged send in the " + RECOVERY_LIMIT_MS + " ms after the kill: "
                                    + silent),
                    () -> assertTrue(
                            survivorsHealthy >= 0, "survivors healthy within 60 s of the kill\n" + cluster.describe()));
        }
    }

    private static List<String> missing(Map<String, Long> all, Map<String, Long> back) {
        return all.keySet().stream().filter(k -> !back.containsKey(k)).sorted().toList();
    }
}
