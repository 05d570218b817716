package io.sluice.it;

import static io.sluice.it.SqsAssert.describe;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.math.BigInteger;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.function.Executable;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.ListMessageMoveTasksResultEntry;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.SendMessageResponse;

/** Helpers shared by the FIFO, dead-letter-queue and message-move-task integration tests. */
final class FifoSupport {

    static final String UNSUPPORTED_OPERATION = "AWS.SimpleQueueService.UnsupportedOperation";
    static final String RESOURCE_NOT_FOUND = "ResourceNotFoundException";

    private FifoSupport() {}

    // ---------------------------------------------------------------- queues

    /** A unique FIFO queue name: {@code prefix-<counter>-<random>.fifo}. */
    static String fifoName(String prefix) {
        return BrokerExtension.uniqueName(prefix) + ".fifo";
    }

    /** Creates a FIFO queue (FifoQueue=true plus the given attributes) with a unique name; returns its URL. */
    static String createFifoQueue(BrokerExtension broker, String prefix, Map<String, String> attributes) {
        Map<String, String> all = new HashMap<>(attributes);
        all.put("FifoQueue", "true");
        String name = fifoName(prefix);
        return broker.sqs()
                .createQueue(r -> r.queueName(name).attributesWithStrings(all))
                .queueUrl();
    }

    static String createFifoQueue(BrokerExtension broker, String prefix) {
        return createFifoQueue(broker, prefix, Map.of());
    }

    /** The queue's ARN as the broker reports it (QueueArn attribute). */
    static String arnOf(BrokerExtension broker, String queueUrl) {
        String arn = broker.attribute(queueUrl, "QueueArn");
        assertNotNull(arn, "QueueArn of " + queueUrl);
        return arn;
    }

    static String redrivePolicy(String targetArn, int maxReceiveCount) {
        return new JsonObject()
                .put("deadLetterTargetArn", targetArn)
                .put("maxReceiveCount", maxReceiveCount)
                .encode();
    }

    static String redriveAllowByQueue(String... sourceArns) {
        return new JsonObject()
                .put("redrivePermission", "byQueue")
                .put("sourceQueueArns", new JsonArray(Arrays.asList((Object[]) sourceArns)))
                .encode();
    }

    // ---------------------------------------------------------------- FIFO messages

    static SendMessageResponse sendFifo(SqsClient sqs, String url, String group, String dedupId, String body) {
        return sqs.sendMessage(r -> r.queueUrl(url)
                .messageGroupId(group)
                .messageDeduplicationId(dedupId)
                .messageBody(body));
    }

    static BigInteger seq(String sequenceNumber) {
        assertNotNull(sequenceNumber, "SequenceNumber missing");
        assertTrue(sequenceNumber.matches("[0-9]+"), "SequenceNumber must be a numeric string: " + sequenceNumber);
        return new BigInteger(sequenceNumber);
    }

    static String groupOf(Message m) {
        return m.attributesAsStrings().get("MessageGroupId");
    }

    /** One short poll with all system attributes. */
    static List<Message> receiveAll(SqsClient sqs, String url, int max, Integer visibilityTimeout) {
        return sqs.receiveMessage(r -> {
                    r.queueUrl(url)
                            .maxNumberOfMessages(max)
                            .waitTimeSeconds(0)
                            .messageSystemAttributeNamesWithStrings("All")
                            .messageAttributeNames("All");
                    if (visibilityTimeout != null) {
                        r.visibilityTimeout(visibilityTimeout);
                    }
                })
                .messages();
    }

    /**
     * Drains a queue by repeated receive (max {@code max} per call) + delete of everything received,
     * until {@code expected} messages were seen; returns the messages in receive order.
     */
    static List<Message> drain(SqsClient sqs, String url, int max, int expected) {
        List<Message> all = new ArrayList<>();
        await().atMost(Duration.ofSeconds(10))
                .pollInterval(Duration.ofMillis(10))
                .until(() -> {
                    List<Message> got = receiveAll(sqs, url, max, 30);
                    assertTrue(got.size() <= max, "receive of " + max + " returned " + got.size());
                    for (Message m : got) {
                        all.add(m);
                        sqs.deleteMessage(r -> r.queueUrl(url).receiptHandle(m.receiptHandle()));
                    }
                    return all.size() >= expected;
                });
        assertEquals(expected, all.size(), "drained more messages than were sent: " + bodies(all));
        return all;
    }

    static List<String> bodies(List<Message> messages) {
        return messages.stream().map(Message::body).toList();
    }

    /** Bodies per message group, each in receive order. */
    static Map<String, List<String>> bodiesByGroup(List<Message> messages) {
        Map<String, List<String>> byGroup = new LinkedHashMap<>();
        for (Message m : messages) {
            byGroup.computeIfAbsent(groupOf(m), g -> new ArrayList<>()).add(m.body());
        }
        return byGroup;
    }

    // ---------------------------------------------------------------- errors

    /** Runs {@code call}, expects an SQS client error (4xx) whose Query code is one of {@code codes}. */
    static AwsServiceException assertErrorCode(Set<String> codes, Executable call, String what) {
        AwsServiceException e =
                assertThrows(AwsServiceException.class, call, () -> what + ": expected an error " + codes);
        String seen = describe(e);
        assertNotNull(e.awsErrorDetails(), what + ": no error details; got " + seen);
        assertTrue(
                codes.contains(e.awsErrorDetails().errorCode()),
                () -> what + ": error code should be one of " + codes + "; got " + seen);
        assertTrue(e.statusCode() >= 400 && e.statusCode() < 500, () -> what + ": expected a 4xx status; got " + seen);
        return e;
    }

    static AwsServiceException assertErrorCode(String code, Executable call, String what) {
        return assertErrorCode(Set.of(code), call, what);
    }

    // ---------------------------------------------------------------- dead-letter queues

    /**
     * Given a source queue with VisibilityTimeout=1 and a RedrivePolicy of maxReceiveCount=1 whose
     * {@code count} messages are all stored, receives each once, then keeps polling the source
     * (which must return nothing: the next receive moves the message instead) until the DLQ holds
     * them all.
     */
    static void redriveAll(BrokerExtension broker, String sourceUrl, String dlqUrl, int count) {
        redriveAll(broker, sourceUrl, dlqUrl, count, count);
    }

    /** As {@link #redriveAll(BrokerExtension, String, String, int)}, the DLQ then holding {@code dlqTotal}. */
    static void redriveAll(BrokerExtension broker, String sourceUrl, String dlqUrl, int count, int dlqTotal) {
        SqsClient sqs = broker.sqs();
        List<String> received = new ArrayList<>();
        await().atMost(Duration.ofSeconds(5))
                .pollInterval(Duration.ofMillis(10))
                .until(() -> {
                    receiveAll(sqs, sourceUrl, 10, null).forEach(m -> received.add(m.messageId()));
                    return received.size() >= count;
                });
        assertEquals(count, Set.copyOf(received).size(), "first receives of the source");
        try {
            await().atMost(Duration.ofSeconds(8))
                    .pollInterval(Duration.ofMillis(100))
                    .until(() -> {
                        List<Message> again = receiveAll(sqs, sourceUrl, 10, null);
                        assertTrue(
                                again.isEmpty(),
                                "a message received maxReceiveCount=1 times was delivered again "
                                        + "instead of moving to the DLQ: " + again);
                        return String.valueOf(dlqTotal).equals(broker.attribute(dlqUrl, "ApproximateNumberOfMessages"));
                    });
        } catch (ConditionTimeoutException e) {
            fail("DLQ should hold " + dlqTotal + " messages but ApproximateNumberOfMessages="
                    + broker.attribute(dlqUrl, "ApproximateNumberOfMessages"));
        }
    }

    // ---------------------------------------------------------------- move tasks

    static List<ListMessageMoveTasksResultEntry> moveTasks(SqsClient sqs, String sourceArn, Integer maxResults) {
        return sqs.listMessageMoveTasks(r -> r.sourceArn(sourceArn).maxResults(maxResults))
                .results();
    }

    /** Awaits the most recent move task of {@code sourceArn} reaching one of {@code statuses}; returns it. */
    static ListMessageMoveTasksResultEntry awaitTaskStatus(
            SqsClient sqs, String sourceArn, Duration atMost, String... statuses) {
        Set<String> wanted = Set.of(statuses);
        ListMessageMoveTasksResultEntry[] last = new ListMessageMoveTasksResultEntry[1];
        try {
            await().atMost(atMost).pollInterval(Duration.ofMillis(100)).until(() -> {
                List<ListMessageMoveTasksResultEntry> tasks = moveTasks(sqs, sourceArn, null);
                last[0] = tasks.isEmpty() ? null : tasks.get(0);
                return last[0] != null && wanted.contains(last[0].status());
            });
        } catch (ConditionTimeoutException e) {
            fail("move task of " + sourceArn + " should reach " + wanted + " but is " + last[0]);
        }
        return last[0];
    }
}
