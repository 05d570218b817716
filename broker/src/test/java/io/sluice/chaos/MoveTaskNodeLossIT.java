package io.sluice.chaos;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.ListMessageMoveTasksResultEntry;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchRequestEntry;

/**
 * Three nodes; a message move task takes a few thousand messages out of a dead-letter queue at a
 * low rate; {@code kill -9} the node running it half-way. The task must resume on another node
 * within seconds, end COMPLETED, and every message must end in the destination (duplicates only
 * as at-least-once allows: one interrupted batch), with a moved count that never goes back and
 * ends at least at the number moved.
 *
 * <p>Which node runs the task is read from the nodes' logs: the runner logs
 * {@code Message move task <handle> runs on this node}.
 */
class MoveTaskNodeLossIT {

    private static final int MESSAGES = 3_000;
    private static final int RATE = 100;
    /** Kill once this many are moved: the task is clearly under way and far from done. */
    private static final int KILL_AFTER_MOVED = 600;
    /** One batch of the runner: what a run killed between storing copies and deleting originals can repeat. */
    private static final int BATCH = 10;
    /** Member death noticed (at most the 10 s heartbeat timeout), the key's backup promoted, the next scan (1 s). */
    private static final long RESUME_LIMIT_MS = 30_000;

    private static ChaosCluster cluster;

    @BeforeAll
    static void startCluster() {
        cluster = new ChaosCluster("MoveTaskNodeLossIT", 3, List.of());
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
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void killNineOfTheRunnerMidWayLosesNoMessage() {
        List<ClusterProcess> nodes = cluster.nodes();
        Map<ClusterProcess, SqsClient> clients = new HashMap<>();
        for (ClusterProcess n : nodes) {
            clients.put(n, Chaos.client(n.endpoint(), Duration.ofSeconds(15)));
        }
        try {
            run(nodes, clients);
        } finally {
            clients.values().forEach(SqsClient::close);
        }
    }

    private void run(List<ClusterProcess> nodes, Map<ClusterProcess, SqsClient> clients) {
        ClusterProcess entry = nodes.get(0);
        SqsClient sqs = clients.get(entry);
        String suffix = Long.toHexString(System.nanoTime());
        String dlq = sqs.createQueue(r -> r.queueName("mt-dlq-" + suffix)).queueUrl();
        String dlqArn = Chaos.arnOf(sqs, dlq);
        sqs.createQueue(r -> r.queueName("mt-src-" + suffix).attributesWithStrings(Chaos.redrivingTo(dlqArn)));
        String target = sqs.createQueue(r -> r.queueName("mt-target-" + suffix)).queueUrl();
        String targetArn = Chaos.arnOf(sqs, target);

        Set<String> sent = sendAll(sqs, dlq);
        await("the DLQ holds every message")
                .atMost(Duration.ofSeconds(20))
                .pollInterval(Duration.ofMillis(250))
                .until(() -> count(sqs, dlq, QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES) == MESSAGES);

        String handle = sqs.startMessageMoveTask(
                        r -> r.sourceArn(dlqArn).destinationArn(targetArn).maxNumberOfMessagesPerSecond(RATE))
                .taskHandle();
        String runsHere = "Message move task " + handle + " runs on this node";
        ClusterProcess[] runner = new ClusterProcess[1];
        await("a node runs the task")
                .atMost(Duration.ofSeconds(10))
                .pollInterval(Duration.ofMillis(100))
                .until(() -> {
                    runner[0] = nodes.stream()
                            .filter(n -> n.logContains(runsHere))
                            .findFirst()
                            .orElse(null);
                    return runner[0] != null;
                });
        ClusterProcess victim = runner[0];
        List<ClusterProcess> survivors = nodes.stream().filter(n -> n != victim).toList();
        SqsClient survivor = clients.get(survivors.get(0));

        ListMessageMoveTasksResultEntry[] last = new ListMessageMoveTasksResultEntry[1];
        await("the task moved " + KILL_AFTER_MOVED)
                .atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(50))
                .until(() -> {
                    last[0] = latest(survivor, dlqArn);
                    return last[0] != null && last[0].approximateNumberOfMessagesMoved() >= KILL_AFTER_MOVED;
                });
        long movedBeforeKill = last[0].approximateNumberOfMessagesMoved();
        if (!"RUNNING".equals(last[0].status()) || movedBeforeKill >= MESSAGES) {
            fail("the task must be mid-way at the kill: " + last[0]);
        }
        long killedAt = System.currentTimeMillis();
        victim.kill9();
        Chaos.report("MoveTaskNodeLossIT: kill -9 " + victim + ", the task's runner, at " + movedBeforeKill + "/"
                + MESSAGES + " moved");

        // Resumed on a survivor: its log shows the take-over.
        ClusterProcess[] resumedOn = new ClusterProcess[1];
        long resumeMs = -1;
        try {
            await("the task resumes on a survivor")
                    .atMost(Duration.ofMillis(RESUME_LIMIT_MS + 30_000))
                    .pollInterval(Duration.ofMillis(100))
                    .until(() -> {
                        resumedOn[0] = survivors.stream()
                                .filter(n -> n.logContains(runsHere))
                                .findFirst()
                                .orElse(null);
                        return resumedOn[0] != null;
                    });
            resumeMs = System.currentTimeMillis() - killedAt;
        } catch (ConditionTimeoutException e) {
            // asserted below
        }

        // Through a survivor: listed all along, counts never go back, COMPLETED in the end.
        List<Long> movedSeen = new ArrayList<>();
        ListMessageMoveTasksResultEntry done = null;
        try {
            done = await("the task completes")
                    .atMost(Duration.ofSeconds(120))
                    .pollInterval(Duration.ofMillis(250))
                    .ignoreExceptions()
                    .until(
                            () -> {
                                ListMessageMoveTasksResultEntry t = latest(survivor, dlqArn);
                                if (t != null) {
                                    movedSeen.add(t.approximateNumberOfMessagesMoved());
                                }
                                return t;
                            },
                            t -> t != null && !"RUNNING".equals(t.status()));
        } catch (ConditionTimeoutException e) {
            // asserted below
        }
        long completedMs = System.currentTimeMillis() - killedAt;
        ListMessageMoveTasksResultEntry end = done;
        Chaos.report("MoveTaskNodeLossIT: resumed on " + resumedOn[0] + " " + resumeMs + " ms after the kill; ended "
                + (end == null ? "never" : end.status() + " with " + end.approximateNumberOfMessagesMoved() + " moved")
                + " " + completedMs + " ms after the kill");

        // Every message is in the destination; the DLQ is empty.
        Map<String, Integer> received = receiveAll(survivor, target);
        int copies = received.values().stream().mapToInt(Integer::intValue).sum();
        Set<String> missing = new HashSet<>(sent);
        missing.removeAll(received.keySet());
        long[] left = {-1};
        try {
            await("the DLQ is empty")
                    .atMost(Duration.ofSeconds(20))
                    .pollInterval(Duration.ofMillis(250))
                    .ignoreExceptions()
                    .until(() -> {
                        left[0] = count(survivor, dlq, QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES)
                                + count(survivor, dlq, QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES_NOT_VISIBLE);
                        return left[0] == 0;
                    });
        } catch (ConditionTimeoutException e) {
            // asserted below
        }
        long dlqLeft = left[0];
        Chaos.report("MoveTaskNodeLossIT: destination holds " + received.size() + " distinct of " + MESSAGES + " sent, "
                + copies + " copies; " + dlqLeft + " left in the DLQ");

        long resumed = resumeMs;
        assertAll(
                () -> assertTrue(
                        resumed >= 0 && resumed <= RESUME_LIMIT_MS,
                        "the task resumes on a survivor within " + RESUME_LIMIT_MS + " ms of the kill: " + resumed
                                + "\n" + cluster.describe()),
                () -> assertTrue(end != null && "COMPLETED".equals(end.status()), "the task ends COMPLETED: " + end),
                () -> assertTrue(
                        missing.isEmpty(),
                        missing.size() + " messages never reached the destination, e.g. "
                                + missing.stream().limit(5).toList()),
                () -> assertTrue(
                        copies - received.size() <= BATCH,
                        "duplicates in the destination: " + (copies - received.size()) + " (at most one batch)"),
                () -> assertEquals(0, dlqLeft, "the DLQ is empty"),
                () -> assertTrue(
                        end != null
                                && end.approximateNumberOfMessagesMoved() >= MESSAGES
                                && end.approximateNumberOfMessagesMoved() <= MESSAGES + BATCH,
                        "ApproximateNumberOfMessagesMoved is at least the number moved, at most one batch more: "
                                + end),
                () -> assertTrue(
                        isNonDecreasing(movedSeen) && (movedSeen.isEmpty() || movedSeen.get(0) >= movedBeforeKill),
                        "the moved count never goes back (from " + movedBeforeKill + "): " + movedSeen));
    }

    private static Set<String> sendAll(SqsClient sqs, String url) {
        Set<String> ids = new HashSet<>();
        for (int i = 0; i < MESSAGES; i += 10) {
            List<SendMessageBatchRequestEntry> batch = new ArrayList<>();
            for (int j = i; j < i + 10; j++) {
                batch.add(SendMessageBatchRequestEntry.builder()
                        .id("e" + j)
                        .messageBody("dead-" + j)
                        .build());
            }
            var resp = sqs.sendMessageBatch(r -> r.queueUrl(url).entries(batch));
            assertTrue(resp.failed().isEmpty(), "sends failed: " + resp.failed());
            resp.successful().forEach(ok -> ids.add(ok.messageId()));
        }
        assertEquals(MESSAGES, ids.size());
        return ids;
    }

    /** Receives (hidden for 10 minutes, not deleted) until the destination gives no more; message id → copies. */
    private static Map<String, Integer> receiveAll(SqsClient sqs, String url) {
        Map<String, Integer> got = new HashMap<>();
        int[] emptyInARow = {0};
        try {
            await("the destination drained")
                    .atMost(Duration.ofSeconds(120))
                    .pollInterval(Duration.ofMillis(1))
                    .ignoreExceptions()
                    .until(() -> {
                        List<Message> ms = sqs.receiveMessage(r -> r.queueUrl(url)
                                        .maxNumberOfMessages(10)
                                        .visibilityTimeout(600)
                                        .waitTimeSeconds(1))
                                .messages();
                        ms.forEach(m -> got.merge(m.messageId(), 1, Integer::sum));
                        emptyInARow[0] = ms.isEmpty() ? emptyInARow[0] + 1 : 0;
                        return emptyInARow[0] >= 3;
                    });
        } catch (ConditionTimeoutException e) {
            // what was received is asserted on
        }
        return got;
    }

    /** The source's most recent task, null when none is listed. */
    private static ListMessageMoveTasksResultEntry latest(SqsClient sqs, String sourceArn) {
        List<ListMessageMoveTasksResultEntry> tasks =
                sqs.listMessageMoveTasks(r -> r.sourceArn(sourceArn)).results();
        return tasks.isEmpty() ? null : tasks.get(0);
    }

    private static long count(SqsClient sqs, String url, QueueAttributeName name) {
        return Long.parseLong(sqs.getQueueAttributes(r -> r.queueUrl(url).attributeNames(name))
                .attributes()
                .get(name));
    }

    private static boolean isNonDecreasing(List<Long> values) {
        for (int i = 1; i < values.size(); i++) {
            if (values.get(i) < values.get(i - 1)) {
                return false;
            }
        }
        return true;
    }
}
