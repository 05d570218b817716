package io.sluice.it;

import static io.sluice.it.FifoSupport.UNSUPPORTED_OPERATION;
import static io.sluice.it.FifoSupport.assertErrorCode;
import static io.sluice.it.FifoSupport.awaitTaskStatus;
import static io.sluice.it.FifoSupport.moveTasks;
import static io.sluice.it.FifoSupport.redrivePolicy;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.cluster.IsolatedClusterConfig;
import io.sluice.config.BrokerConfig;
import io.sluice.config.ConfigLoader;
import io.sluice.server.SluiceNode;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.CancelMessageMoveTaskResponse;
import software.amazon.awssdk.services.sqs.model.ListMessageMoveTasksResultEntry;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchRequestEntry;

/**
 * Move tasks belong to the cluster: on two real nodes in this JVM, a task started through one
 * node is listed, refused a second start, and cancelled through the other, and a task started
 * through the second runs to completion whichever node runs it.
 */
@Timeout(120)
class MoveTaskTwoNodeTest {
    private static final int MESSAGES = 30;

    private static SluiceNode a;
    private static SluiceNode b;
    private static SqsClient viaA;
    private static SqsClient viaB;

    @BeforeAll
    static void start() throws Exception {
        // The project's local configuration under a cluster name of its own, so nothing else joins.
        Path config = IsolatedClusterConfig.write(IsolatedClusterConfig.newClusterName());
        BrokerConfig base = ConfigLoader.load(
                List.of("--port", "0", "--partitions", "8", "--cluster-config", config.toString()), Map.of());
        a = SluiceNode.start(base);
        b = SluiceNode.start(base);
        viaA = client(a);
        viaB = client(b);
    }

    private static SqsClient client(SluiceNode node) {
        return SqsClient.builder()
                .endpointOverride(URI.create(node.baseUrl()))
                .region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("x", "x")))
                .httpClient(UrlConnectionHttpClient.create())
                .build();
    }

    @AfterAll
    static void stop() {
        viaA.close();
        viaB.close();
        b.close();
        a.close();
    }

    private static String arnOf(String url) {
        return viaA.getQueueAttributes(r -> r.queueUrl(url).attributeNames(QueueAttributeName.QUEUE_ARN))
                .attributes()
                .get(QueueAttributeName.QUEUE_ARN);
    }

    private static int visible(SqsClient via, String url) {
        return Integer.parseInt(via.getQueueAttributes(
                        r -> r.queueUrl(url).attributeNames(QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES))
                .attributes()
                .get(QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES));
    }

    @Test
    void listAndCancelWorkThroughTheOtherNode() {
        String dlq = viaA.createQueue(r -> r.queueName("two-dlq")).queueUrl();
        String dlqArn = arnOf(dlq);
        viaA.createQueue(
                r -> r.queueName("two-src").attributesWithStrings(Map.of("RedrivePolicy", redrivePolicy(dlqArn, 1))));
        String target = viaA.createQueue(r -> r.queueName("two-target")).queueUrl();
        String targetArn = arnOf(target);
        for (int i = 0; i < MESSAGES; i += 10) {
            List<SendMessageBatchRequestEntry> batch = new ArrayList<>();
            for (int j = i; j < i + 10; j++) {
                batch.add(SendMessageBatchRequestEntry.builder()
                        .id("e" + j)
                        .messageBody("m" + j)
                        .build());
            }
            assertTrue(viaA.sendMessageBatch(r -> r.queueUrl(dlq).entries(batch))
                    .failed()
                    .isEmpty());
        }
        // A counts ApproximateNumberOfMessagesToMove at the start: from what the partitions last published.
        await("the DLQ's count, seen through both nodes")
                .atMost(Duration.ofSeconds(10))
                .until(() -> visible(viaA, dlq) == MESSAGES && visible(viaB, dlq) == MESSAGES);

        String handle = viaA.startMessageMoveTask(
                        r -> r.sourceArn(dlqArn).destinationArn(targetArn).maxNumberOfMessagesPerSecond(1))
                .taskHandle();

        List<ListMessageMoveTasksResultEntry> seenByB = moveTasks(viaB, dlqArn, null);
        assertEquals(1, seenByB.size(), "B lists the task A started: " + seenByB);
        assertEquals("RUNNING", seenByB.get(0).status(), "30 messages at 1/s: " + seenByB);
        assertEquals(handle, seenByB.get(0).taskHandle());
        assertEquals(targetArn, seenByB.get(0).destinationArn());
        assertEquals((long) MESSAGES, seenByB.get(0).approximateNumberOfMessagesToMove());
        assertErrorCode(
                UNSUPPORTED_OPERATION,
                () -> viaB.startMessageMoveTask(r -> r.sourceArn(dlqArn).destinationArn(targetArn)),
                "a second task through B while A's runs");

        CancelMessageMoveTaskResponse cancelled = viaB.cancelMessageMoveTask(r -> r.taskHandle(handle));
        assertTrue(cancelled.approximateNumberOfMessagesMoved() < MESSAGES, "cancelled at once: " + cancelled);
        ListMessageMoveTasksResultEntry endA = awaitTaskStatus(viaA, dlqArn, Duration.ofSeconds(10), "CANCELLED");
        ListMessageMoveTasksResultEntry endB = awaitTaskStatus(viaB, dlqArn, Duration.ofSeconds(10), "CANCELLED");
        assertEquals(endA, endB, "both nodes list the same task");
        long moved = endA.approximateNumberOfMessagesMoved();
        assertTrue(moved < MESSAGES, "not everything moved: " + endA);
        assertErrorCode(
                UNSUPPORTED_OPERATION,
                () -> viaA.cancelMessageMoveTask(r -> r.taskHandle(handle)),
                "cancel of a task that ended");
        await("the destination holds what the task reports as moved, the DLQ the rest")
                .atMost(Duration.ofSeconds(10))
                .until(() -> visible(viaB, target) == moved && visible(viaA, dlq) == MESSAGES - moved);

        viaB.startMessageMoveTask(r -> r.sourceArn(dlqArn).destinationArn(targetArn));
        ListMessageMoveTasksResultEntry done = awaitTaskStatus(viaA, dlqArn, Duration.ofSeconds(20), "COMPLETED");
        assertEquals(
                MESSAGES - moved, done.approximateNumberOfMessagesMoved(), "the second task moved the rest: " + done);
        List<ListMessageMoveTasksResultEntry> both = moveTasks(viaB, dlqArn, 10);
        assertEquals(
                List.of("COMPLETED", "CANCELLED"),
                both.stream().map(ListMessageMoveTasksResultEntry::status).toList());
        await("every message in the destination")
                .atMost(Duration.ofSeconds(10))
                .until(() -> visible(viaB, target) == MESSAGES && visible(viaB, dlq) == 0);
    }
}
