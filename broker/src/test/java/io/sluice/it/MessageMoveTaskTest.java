package io.sluice.it;

import static io.sluice.it.FifoSupport.RESOURCE_NOT_FOUND;
import static io.sluice.it.FifoSupport.UNSUPPORTED_OPERATION;
import static io.sluice.it.FifoSupport.arnOf;
import static io.sluice.it.FifoSupport.assertErrorCode;
import static io.sluice.it.FifoSupport.awaitTaskStatus;
import static io.sluice.it.FifoSupport.createFifoQueue;
import static io.sluice.it.FifoSupport.moveTasks;
import static io.sluice.it.FifoSupport.receiveAll;
import static io.sluice.it.FifoSupport.redriveAll;
import static io.sluice.it.FifoSupport.redrivePolicy;
import static io.sluice.it.FifoSupport.sendFifo;
import static io.sluice.it.SqsAssert.INVALID_PARAMETER_VALUE;
import static io.sluice.it.SqsAssert.assertNotBlank;
import static io.sluice.it.SqsAssert.awaitAttribute;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.CancelMessageMoveTaskResponse;
import software.amazon.awssdk.services.sqs.model.ListMessageMoveTasksResultEntry;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.MessageAttributeValue;
import software.amazon.awssdk.services.sqs.model.ResourceNotFoundException;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchRequestEntry;

/** StartMessageMoveTask, ListMessageMoveTasks and CancelMessageMoveTask on standard queues (and FIFO ones for enqueue times). */
@Timeout(45)
class MessageMoveTaskTest {

    @RegisterExtension
    static final BrokerExtension broker = new BrokerExtension();

    private SqsClient sqs() {
        return broker.sqs();
    }

    /** A DLQ and one source pointing at it (maxReceiveCount=1, VisibilityTimeout=1). Returns {dlq, source}. */
    private String[] dlqWithSource(String prefix) {
        String dlq = broker.createQueue(prefix + "-dlq");
        String source = broker.createQueue(
                prefix + "-src",
                Map.of("VisibilityTimeout", "1", "RedrivePolicy", redrivePolicy(arnOf(broker, dlq), 1)));
        return new String[] {dlq, source};
    }

    /** Sends {@code n} messages straight into a queue (a DLQ here); returns MessageId → body. */
    private Map<String, String> sendDirect(String url, String prefix, int n) {
        Map<String, String> sent = new HashMap<>();
        List<SendMessageBatchRequestEntry> batch = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            batch.add(SendMessageBatchRequestEntry.builder()
                    .id("e" + i)
                    .messageBody(prefix + "-" + i)
                    .build());
            if (batch.size() == 10 || i == n - 1) {
                List<SendMessageBatchRequestEntry> entries = batch;
                var resp = sqs().sendMessageBatch(r -> r.queueUrl(url).entries(entries));
                assertTrue(resp.failed().isEmpty(), "failed: " + resp.failed());
                for (var ok : resp.successful()) {
                    String body = entries.stream()
                            .filter(e -> e.id().equals(ok.id()))
                            .findFirst()
                            .orElseThrow()
                            .messageBody();
                    sent.put(ok.messageId(), body);
                }
                batch = new ArrayList<>();
            }
        }
        awaitAttribute(broker, url, "ApproximateNumberOfMessages", String.valueOf(n));
        return sent;
    }

    /** Receives (VisibilityTimeout 30) until {@code n} messages came; returns MessageId → body. */
    private Map<String, String> receiveN(String url, int n) {
        Map<String, String> got = new HashMap<>();
        await().atMost(Duration.ofSeconds(5))
                .pollInterval(Duration.ofMillis(20))
                .until(() -> {
                    for (Message m : receiveAll(sqs(), url, 10, 30)) {
                        assertNull(got.put(m.messageId(), m.body()), "received twice: " + m);
                    }
                    return got.size() >= n;
                });
        assertTrue(receiveAll(sqs(), url, 10, 30).isEmpty(), "more than " + n + " messages in " + url);
        return got;
    }

    private static void assertStartedRecently(ListMessageMoveTasksResultEntry task, long before, long after) {
        assertNotNull(task.startedTimestamp(), "StartedTimestamp missing: " + task);
        assertTrue(
                task.startedTimestamp() >= before - 1000 && task.startedTimestamp() <= after + 1000,
                "StartedTimestamp is epoch milliseconds of the start: " + task.startedTimestamp() + " not in [" + before
                        + "," + after + "]");
    }

    @Test
    void withoutDestinationMessagesGoBackToTheirOriginalSources() {
        String dlq = broker.createQueue("back-dlq");
        String dlqArn = arnOf(broker, dlq);
        String s1 = broker.createQueue(
                "back-s1", Map.of("VisibilityTimeout", "1", "RedrivePolicy", redrivePolicy(dlqArn, 1)));
        String s2 = broker.createQueue(
                "back-s2", Map.of("VisibilityTimeout", "1", "RedrivePolicy", redrivePolicy(dlqArn, 1)));
        Map<String, String> sent1 = new HashMap<>();
        Map<String, String> sent2 = new HashMap<>();
        for (int i = 0; i < 3; i++) {
            String body = "s1-" + i;
            sent1.put(sqs().sendMessage(r -> r.queueUrl(s1).messageBody(body)).messageId(), body);
        }
        for (int i = 0; i < 2; i++) {
            String body = "s2-" + i;
            sent2.put(sqs().sendMessage(r -> r.queueUrl(s2).messageBody(body)).messageId(), body);
        }
        redriveAll(broker, s1, dlq, 3, 3);
        redriveAll(broker, s2, dlq, 2, 5);
        // Let the moved-back messages be received again without bouncing straight back to the DLQ.
        for (String s : List.of(s1, s2)) {
            sqs().setQueueAttributes(r -> r.queueUrl(s)
                    .attributesWithStrings(
                            Map.of("RedrivePolicy", redrivePolicy(dlqArn, 10), "VisibilityTimeout", "30")));
        }

        long before = System.currentTimeMillis();
        String handle = sqs().startMessageMoveTask(r -> r.sourceArn(dlqArn)).taskHandle();
        long after = System.currentTimeMillis();
        assertNotBlank(handle, "TaskHandle");

        ListMessageMoveTasksResultEntry done = awaitTaskStatus(sqs(), dlqArn, Duration.ofSeconds(10), "COMPLETED");
        assertEquals(dlqArn, done.sourceArn());
        assertNull(done.destinationArn(), "no DestinationArn was given: " + done);
        assertEquals(5L, done.approximateNumberOfMessagesMoved(), "moved: " + done);
        assertEquals(5L, done.approximateNumberOfMessagesToMove(), "to move: " + done);
        assertStartedRecently(done, before, after);

        assertEquals(sent1, receiveN(s1, 3), "the messages of s1 are back in s1 with their MessageId and body");
        assertEquals(sent2, receiveN(s2, 2), "the messages of s2 are back in s2 with their MessageId and body");
        awaitAttribute(broker, dlq, "ApproximateNumberOfMessages", "0");
        awaitAttribute(broker, dlq, "ApproximateNumberOfMessagesNotVisible", "0");
        assertTrue(receiveAll(sqs(), dlq, 10, 30).isEmpty(), "the DLQ is empty");
    }

    @Test
    void withDestinationMessagesGoThereIntact() {
        String[] q = dlqWithSource("dest");
        String dlq = q[0];
        String dlqArn = arnOf(broker, dlq);
        String target = broker.createQueue("dest-target");
        String targetArn = arnOf(broker, target);
        Map<String, String> sent = sendDirect(dlq, "direct", 12);
        MessageAttributeValue attr = MessageAttributeValue.builder()
                .dataType("String")
                .stringValue("kept")
                .build();
        String withAttrId = sqs().sendMessage(
                        r -> r.queueUrl(dlq).messageBody("with-attr").messageAttributes(Map.of("tag", attr)))
                .messageId();
        sent.put(withAttrId, "with-attr");
        awaitAttribute(broker, dlq, "ApproximateNumberOfMessages", "13");

        long before = System.currentTimeMillis();
        String handle = sqs().startMessageMoveTask(
                        r -> r.sourceArn(dlqArn).destinationArn(targetArn).maxNumberOfMessagesPerSecond(500))
                .taskHandle();
        long after = System.currentTimeMillis();
        assertNotBlank(handle, "TaskHandle");

        ListMessageMoveTasksResultEntry done = awaitTaskStatus(sqs(), dlqArn, Duration.ofSeconds(10), "COMPLETED");
        assertEquals(dlqArn, done.sourceArn());
        assertEquals(targetArn, done.destinationArn());
        assertEquals(13L, done.approximateNumberOfMessagesMoved());
        assertEquals(13L, done.approximateNumberOfMessagesToMove());
        assertEquals(500, done.maxNumberOfMessagesPerSecond(), "the given rate is reported");
        assertStartedRecently(done, before, after);

        Map<String, String> got = new HashMap<>();
        Map<String, MessageAttributeValue>[] attrsOfTagged = new Map[1];
        await().atMost(Duration.ofSeconds(5))
                .pollInterval(Duration.ofMillis(20))
                .until(() -> {
                    for (Message m : receiveAll(sqs(), target, 10, 30)) {
                        assertNull(got.put(m.messageId(), m.body()), "moved twice: " + m);
                        if (m.messageId().equals(withAttrId)) {
                            attrsOfTagged[0] = m.messageAttributes();
                        }
                    }
                    return got.size() >= 13;
                });
        assertEquals(sent, got, "every message arrived in the destination with its MessageId and body");
        assertEquals(Map.of("tag", attr), attrsOfTagged[0], "message attributes are moved too");
        awaitAttribute(broker, dlq, "ApproximateNumberOfMessages", "0");
        assertTrue(receiveAll(sqs(), dlq, 10, 30).isEmpty(), "the DLQ is empty");
        assertTrue(receiveAll(sqs(), q[1], 10, 30).isEmpty(), "nothing went to the DLQ's source");
    }

    @Test
    void startValidation() {
        String[] q = dlqWithSource("val");
        String dlqArn = arnOf(broker, q[0]);
        for (int rate : new int[] {0, -1, 501}) {
            assertErrorCode(
                    INVALID_PARAMETER_VALUE,
                    () -> sqs().startMessageMoveTask(r -> r.sourceArn(dlqArn).maxNumberOfMessagesPerSecond(rate)),
                    "MaxNumberOfMessagesPerSecond=" + rate);
        }
        String plain = broker.createQueue("val-plain");
        assertErrorCode(
                INVALID_PARAMETER_VALUE,
                () -> sqs().startMessageMoveTask(r -> r.sourceArn(arnOf(broker, plain))),
                "source is not a DLQ (no RedrivePolicy names it)");
        assertErrorCode(
                INVALID_PARAMETER_VALUE,
                () -> sqs().startMessageMoveTask(r -> r.sourceArn(arnOf(broker, q[1]))),
                "source is a queue that has a DLQ but is not one");
        String missingArn = BrokerExtension.expectedArn("no-such-queue-" + System.nanoTime());
        AwsServiceException e = assertErrorCode(
                RESOURCE_NOT_FOUND,
                () -> sqs().startMessageMoveTask(r -> r.sourceArn(missingArn)),
                "source does not exist");
        assertTrue(
                e instanceof ResourceNotFoundException,
                "SDK exception class: " + e.getClass().getSimpleName());
        assertTrue(moveTasks(sqs(), dlqArn, 10).isEmpty(), "refused starts create no task");
    }

    @Test
    void listMessageMoveTasksDefaultsToTheMostRecentAndKeepsUpToTen() {
        String[] q = dlqWithSource("list");
        String dlq = q[0];
        String dlqArn = arnOf(broker, dlq);
        String target = broker.createQueue("list-target");
        String targetArn = arnOf(broker, target);

        assertTrue(moveTasks(sqs(), dlqArn, null).isEmpty(), "no task yet");

        sendDirect(dlq, "first", 2);
        String h1 = sqs().startMessageMoveTask(r -> r.sourceArn(dlqArn).destinationArn(targetArn))
                .taskHandle();
        awaitTaskStatus(sqs(), dlqArn, Duration.ofSeconds(10), "COMPLETED");
        sendDirect(dlq, "second", 3);
        String h2 = sqs().startMessageMoveTask(r -> r.sourceArn(dlqArn).destinationArn(targetArn))
                .taskHandle();
        assertTrue(!h1.equals(h2), "each task has its own handle");
        ListMessageMoveTasksResultEntry second = awaitTaskStatus(sqs(), dlqArn, Duration.ofSeconds(10), "COMPLETED");
        assertEquals(3L, second.approximateNumberOfMessagesMoved(), "the default result is the most recent task");

        List<ListMessageMoveTasksResultEntry> defaults = moveTasks(sqs(), dlqArn, null);
        assertEquals(1, defaults.size(), "MaxResults defaults to 1: " + defaults);
        List<ListMessageMoveTasksResultEntry> both = moveTasks(sqs(), dlqArn, 10);
        assertEquals(2, both.size(), "two tasks: " + both);
        assertEquals(3L, both.get(0).approximateNumberOfMessagesMoved(), "most recent first: " + both);
        assertEquals(2L, both.get(1).approximateNumberOfMessagesMoved(), "most recent first: " + both);
        assertTrue(both.get(0).startedTimestamp() >= both.get(1).startedTimestamp());

        AwsServiceException tooMany = assertThrows(
                AwsServiceException.class,
                () -> sqs().listMessageMoveTasks(r -> r.sourceArn(dlqArn).maxResults(11)),
                "MaxResults=11");
        assertEquals(400, tooMany.statusCode(), "MaxResults above 10: " + tooMany);
    }

    @Test
    void secondStartWhileRunningIsRefusedAndCancelStopsTheTask() throws Throwable {
        String[] q = dlqWithSource("cancel");
        String dlq = q[0];
        String dlqArn = arnOf(broker, dlq);
        String target = broker.createQueue("cancel-target");
        String targetArn = arnOf(broker, target);
        sendDirect(dlq, "slow", 20);

        String handle = sqs().startMessageMoveTask(
                        r -> r.sourceArn(dlqArn).destinationArn(targetArn).maxNumberOfMessagesPerSecond(1))
                .taskHandle();
        try {
            List<ListMessageMoveTasksResultEntry> running = moveTasks(sqs(), dlqArn, null);
            assertEquals(1, running.size());
            ListMessageMoveTasksResultEntry task = running.get(0);
            assertEquals("RUNNING", task.status(), "20 messages at 1/s: still running: " + task);
            assertEquals(handle, task.taskHandle(), "a running task shows its TaskHandle");
            assertEquals(dlqArn, task.sourceArn());
            assertEquals(targetArn, task.destinationArn());
            assertEquals(1, task.maxNumberOfMessagesPerSecond());
            assertEquals(20L, task.approximateNumberOfMessagesToMove(), "to move: " + task);

            AwsServiceException e = assertErrorCode(
                    UNSUPPORTED_OPERATION,
                    () -> sqs().startMessageMoveTask(r -> r.sourceArn(dlqArn).destinationArn(targetArn)),
                    "a second task on a source with a RUNNING task");
            assertTrue(
                    e instanceof software.amazon.awssdk.services.sqs.model.UnsupportedOperationException,
                    "SDK exception class: " + e.getClass().getSimpleName());
        } catch (Throwable t) {
            try {
                sqs().cancelMessageMoveTask(r -> r.taskHandle(handle));
            } catch (RuntimeException cancelFailed) {
                t.addSuppressed(cancelFailed);
            }
            throw t;
        }
        CancelMessageMoveTaskResponse cancelled = sqs().cancelMessageMoveTask(r -> r.taskHandle(handle));
        assertNotNull(cancelled.approximateNumberOfMessagesMoved(), "ApproximateNumberOfMessagesMoved");
        assertTrue(
                cancelled.approximateNumberOfMessagesMoved() < 20,
                "a 1/s task cancelled at once has not moved everything: " + cancelled);

        ListMessageMoveTasksResultEntry end = awaitTaskStatus(sqs(), dlqArn, Duration.ofSeconds(5), "CANCELLED");
        long moved = end.approximateNumberOfMessagesMoved() == null ? 0 : end.approximateNumberOfMessagesMoved();
        assertTrue(moved < 20, "not all messages moved: " + end);

        // No message lost or duplicated: what moved plus what stayed is the 20.
        try {
            await().atMost(Duration.ofSeconds(3))
                    .pollInterval(Duration.ofMillis(100))
                    .until(() -> Integer.parseInt(broker.attribute(dlq, "ApproximateNumberOfMessages"))
                                    + Integer.parseInt(broker.attribute(target, "ApproximateNumberOfMessages"))
                            == 20);
        } catch (ConditionTimeoutException timeout) {
            throw new AssertionError("after cancel: DLQ " + broker.attribute(dlq, "ApproximateNumberOfMessages")
                    + " + destination " + broker.attribute(target, "ApproximateNumberOfMessages") + " != 20");
        }
        int remaining = Integer.parseInt(broker.attribute(dlq, "ApproximateNumberOfMessages"));
        assertTrue(remaining > 0, "a cancelled 1/s task must leave messages in the DLQ");
        assertEquals(
                String.valueOf(moved),
                broker.attribute(target, "ApproximateNumberOfMessages"),
                "the destination holds what the task reports as moved");

        // Once cancelled, a new task may start on the same source.
        String again = sqs().startMessageMoveTask(r -> r.sourceArn(dlqArn).destinationArn(targetArn))
                .taskHandle();
        assertNotBlank(again, "TaskHandle of a new task");
        awaitTaskStatus(sqs(), dlqArn, Duration.ofSeconds(10), "COMPLETED");
        awaitAttribute(broker, target, "ApproximateNumberOfMessages", "20");
        awaitAttribute(broker, dlq, "ApproximateNumberOfMessages", "0");
    }

    @Test
    void listOfAMissingSourceIsResourceNotFound() {
        String missingArn = BrokerExtension.expectedArn("no-such-queue-" + System.nanoTime());
        assertErrorCode(
                RESOURCE_NOT_FOUND,
                () -> sqs().listMessageMoveTasks(r -> r.sourceArn(missingArn)),
                "ListMessageMoveTasks of a missing source");
    }

    @Test
    void cancelOfAnUnknownHandleIsResourceNotFound() {
        AwsServiceException e = assertErrorCode(
                RESOURCE_NOT_FOUND,
                () -> sqs().cancelMessageMoveTask(r -> r.taskHandle("no-such-task-handle")),
                "CancelMessageMoveTask of an unknown handle");
        assertTrue(
                e instanceof ResourceNotFoundException,
                "SDK exception class: " + e.getClass().getSimpleName());
    }

    /**
     * AWS: a standard queue's message keeps its enqueue timestamp when it is moved to the DLQ,
     * a FIFO queue's is reset (and its deduplication id becomes its message id); a message move
     * task enqueues every redriven message anew. The source's 1 s visibility puts the move into
     * the DLQ at least 1 s after the send, so a reset timestamp is told from a kept one.
     */
    @Test
    void fifoMessageIsEnqueuedAnewInTheDlqAndAgainWhenMovedOut() {
        assertEnqueueTimestamps(true);
    }

    @Test
    void standardMessageKeepsItsEnqueueTimeInTheDlqAndIsEnqueuedAnewWhenMovedOut() {
        assertEnqueueTimestamps(false);
    }

    private void assertEnqueueTimestamps(boolean fifo) {
        String dlq = fifo ? createFifoQueue(broker, "ts-dlq") : broker.createQueue("ts-dlq");
        String dlqArn = arnOf(broker, dlq);
        Map<String, String> sourceAttributes =
                Map.of("VisibilityTimeout", "1", "RedrivePolicy", redrivePolicy(dlqArn, 1));
        String source = fifo
                ? createFifoQueue(broker, "ts-src", sourceAttributes)
                : broker.createQueue("ts-src", sourceAttributes);

        long beforeSend = System.currentTimeMillis();
        String messageId = fifo
                ? sendFifo(sqs(), source, "g1", "shared-dedup-id", "stamped").messageId()
                : sqs().sendMessage(r -> r.queueUrl(source).messageBody("stamped"))
                        .messageId();
        long afterSend = System.currentTimeMillis();
        redriveAll(broker, source, dlq, 1);

        // Read it in the DLQ without hiding it from the task.
        List<Message> inDlq = receiveAll(sqs(), dlq, 10, 0);
        assertEquals(1, inDlq.size(), "the DLQ holds the message: " + inDlq);
        Message dead = inDlq.get(0);
        assertEquals(messageId, dead.messageId());
        long deadSent = Long.parseLong(dead.attributesAsStrings().get("SentTimestamp"));
        if (fifo) {
            assertTrue(
                    deadSent >= afterSend + 1000,
                    "a FIFO message is enqueued anew in the DLQ: SentTimestamp " + deadSent + ", sent at most at "
                            + afterSend + ", moved at least 1 s later");
            assertEquals(
                    messageId,
                    dead.attributesAsStrings().get("MessageDeduplicationId"),
                    "a FIFO message's deduplication id in the DLQ is its message id");
            assertEquals("g1", dead.attributesAsStrings().get("MessageGroupId"));
        } else {
            assertTrue(
                    deadSent >= beforeSend && deadSent <= afterSend,
                    "a standard message keeps its SentTimestamp in the DLQ: " + deadSent + " not in [" + beforeSend
                            + "," + afterSend + "]");
        }

        long beforeStart = System.currentTimeMillis();
        sqs().startMessageMoveTask(r -> r.sourceArn(dlqArn));
        awaitTaskStatus(sqs(), dlqArn, Duration.ofSeconds(10), "COMPLETED");
        List<Message> back = receiveAll(sqs(), source, 10, 30);
        assertEquals(1, back.size(), "the message is back in its source: " + back);
        Message moved = back.get(0);
        assertEquals(messageId, moved.messageId());
        assertEquals("stamped", moved.body());
        long movedSent = Long.parseLong(moved.attributesAsStrings().get("SentTimestamp"));
        assertTrue(
                movedSent >= beforeStart,
                "a redriven message is enqueued anew: SentTimestamp " + movedSent + " before the task started at "
                        + beforeStart);
        assertEquals("1", moved.attributesAsStrings().get("ApproximateReceiveCount"), "it starts afresh in the source");
        assertNull(moved.attributesAsStrings().get("DeadLetterQueueSourceArn"));
        if (fifo) {
            assertEquals("g1", moved.attributesAsStrings().get("MessageGroupId"));
        }
    }
}
