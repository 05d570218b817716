package io.sluice.it;

import static io.sluice.it.FifoSupport.arnOf;
import static io.sluice.it.FifoSupport.createFifoQueue;
import static io.sluice.it.FifoSupport.receiveAll;
import static io.sluice.it.FifoSupport.redrivePolicy;
import static io.sluice.it.SqsAssert.awaitAttribute;
import static io.sluice.it.SqsAssert.md5OfAttributes;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.MessageAttributeValue;
import software.amazon.awssdk.services.sqs.model.SendMessageResponse;

/** A message received more than maxReceiveCount times moves to the dead-letter queue, intact. */
@Timeout(30)
class DeadLetterRedriveTest {

    @RegisterExtension
    static final BrokerExtension broker = new BrokerExtension();

    private SqsClient sqs() {
        return broker.sqs();
    }

    private static Map<String, MessageAttributeValue> attributes() {
        Map<String, MessageAttributeValue> m = new HashMap<>();
        m.put(
                "trace",
                MessageAttributeValue.builder()
                        .dataType("String")
                        .stringValue("abc-123 ☃")
                        .build());
        m.put(
                "attempt",
                MessageAttributeValue.builder()
                        .dataType("Number")
                        .stringValue("7")
                        .build());
        m.put(
                "raw",
                MessageAttributeValue.builder()
                        .dataType("Binary")
                        .binaryValue(SdkBytes.fromByteArray(new byte[] {0, 1, (byte) 0xFE}))
                        .build());
        return m;
    }

    /** Receives the message twice (waiting for the 1 s visibility to end in between); returns the second receive. */
    private Message receiveTwice(String source, String messageId) {
        List<Message> first = receiveAll(sqs(), source, 1, null);
        assertEquals(1, first.size(), "first receive");
        assertEquals(messageId, first.get(0).messageId());
        assertEquals("1", first.get(0).attributesAsStrings().get("ApproximateReceiveCount"));
        Message second = await().atMost(Duration.ofSeconds(5))
                .pollInterval(Duration.ofMillis(50))
                .until(() -> receiveAll(sqs(), source, 1, null), l -> !l.isEmpty())
                .get(0);
        assertEquals(messageId, second.messageId(), "second receive");
        assertEquals("2", second.attributesAsStrings().get("ApproximateReceiveCount"));
        return second;
    }

    /**
     * Polls the source (which must not deliver the message a third time) until the DLQ counts one
     * message; then receives it from the DLQ.
     */
    private Message awaitInDlq(String source, String dlq) {
        try {
            await().atMost(Duration.ofSeconds(6))
                    .pollInterval(Duration.ofMillis(100))
                    .until(() -> {
                        List<Message> again = receiveAll(sqs(), source, 10, null);
                        assertTrue(
                                again.isEmpty(),
                                "received a third time from the source with maxReceiveCount=2: " + again);
                        return "1".equals(broker.attribute(dlq, "ApproximateNumberOfMessages"));
                    });
        } catch (ConditionTimeoutException e) {
            fail("the message never reached the DLQ: DLQ ApproximateNumberOfMessages="
                    + broker.attribute(dlq, "ApproximateNumberOfMessages") + ", source "
                    + broker.attribute(source, "ApproximateNumberOfMessages") + " visible / "
                    + broker.attribute(source, "ApproximateNumberOfMessagesNotVisible") + " in flight");
        }
        List<Message> got = receiveAll(sqs(), dlq, 10, 30);
        assertEquals(1, got.size(), "the DLQ holds the message once: " + got);
        return got.get(0);
    }

    private static void assertReceiveCountCarried(Message inDlq) {
        String count = inDlq.attributesAsStrings().get("ApproximateReceiveCount");
        assertTrue(
                Set.of("2", "3").contains(count),
                "ApproximateReceiveCount in the DLQ continues from the source's 2 (2, or 3 with this receive), got "
                        + count);
    }

    @Test
    void standardMessageMovesToTheDlqIntact() {
        String dlq = broker.createQueue("dlq");
        String source = broker.createQueue(
                "src", Map.of("VisibilityTimeout", "1", "RedrivePolicy", redrivePolicy(arnOf(broker, dlq), 2)));
        Map<String, MessageAttributeValue> attrs = attributes();
        SendMessageResponse sent = sqs().sendMessage(
                        r -> r.queueUrl(source).messageBody("poison {\"x\":1}").messageAttributes(attrs));
        Message second = receiveTwice(source, sent.messageId());
        String sentTimestamp = second.attributesAsStrings().get("SentTimestamp");

        Message inDlq = awaitInDlq(source, dlq);
        assertEquals(sent.messageId(), inDlq.messageId(), "MessageId is kept");
        assertEquals("poison {\"x\":1}", inDlq.body());
        assertEquals(attrs, inDlq.messageAttributes(), "message attributes are kept");
        assertEquals(md5OfAttributes(attrs), inDlq.md5OfMessageAttributes());
        assertEquals(sentTimestamp, inDlq.attributesAsStrings().get("SentTimestamp"), "SentTimestamp is kept");
        assertReceiveCountCarried(inDlq);

        awaitAttribute(broker, source, "ApproximateNumberOfMessages", "0");
        awaitAttribute(broker, source, "ApproximateNumberOfMessagesNotVisible", "0");
        awaitAttribute(broker, source, "ApproximateNumberOfMessagesDelayed", "0");
        assertTrue(receiveAll(sqs(), source, 10, null).isEmpty());
        sqs().deleteMessage(r -> r.queueUrl(dlq).receiptHandle(inDlq.receiptHandle()));
        awaitAttribute(broker, dlq, "ApproximateNumberOfMessagesNotVisible", "0");
    }

    @Test
    void poisonMessageMovesWhileGoodMessagesFlow() {
        String dlq = broker.createQueue("dlq");
        String source = broker.createQueue(
                "src", Map.of("VisibilityTimeout", "1", "RedrivePolicy", redrivePolicy(arnOf(broker, dlq), 2)));
        SendMessageResponse poison = sqs().sendMessage(r -> r.queueUrl(source).messageBody("poison"));
        receiveTwice(source, poison.messageId());
        // A good message sent now is received and deleted normally.
        sqs().sendMessage(r -> r.queueUrl(source).messageBody("good"));
        Message inDlq = awaitInDlqOrGood(source, dlq);
        assertEquals(poison.messageId(), inDlq.messageId());
        awaitAttribute(broker, source, "ApproximateNumberOfMessages", "0");
        awaitAttribute(broker, source, "ApproximateNumberOfMessagesNotVisible", "0");
    }

    /** Like awaitInDlq, but the source may deliver the message "good" (deleted at once), never "poison". */
    private Message awaitInDlqOrGood(String source, String dlq) {
        boolean[] goodSeen = {false};
        await().atMost(Duration.ofSeconds(6))
                .pollInterval(Duration.ofMillis(100))
                .until(() -> {
                    for (Message m : receiveAll(sqs(), source, 10, null)) {
                        assertEquals("good", m.body(), "the poison message was delivered a third time");
                        sqs().deleteMessage(r -> r.queueUrl(source).receiptHandle(m.receiptHandle()));
                        goodSeen[0] = true;
                    }
                    return goodSeen[0] && "1".equals(broker.attribute(dlq, "ApproximateNumberOfMessages"));
                });
        List<Message> got = receiveAll(sqs(), dlq, 10, 30);
        assertEquals(1, got.size(), "only the poison message is in the DLQ: " + got);
        assertEquals("poison", got.get(0).body());
        return got.get(0);
    }

    @Test
    void redrivePolicySetAfterCreationApplies() {
        String dlq = broker.createQueue("dlq");
        String source = broker.createQueue("src", Map.of("VisibilityTimeout", "1"));
        sqs().setQueueAttributes(r -> r.queueUrl(source)
                .attributesWithStrings(Map.of("RedrivePolicy", redrivePolicy(arnOf(broker, dlq), 2))));
        SendMessageResponse sent = sqs().sendMessage(r -> r.queueUrl(source).messageBody("late policy"));
        receiveTwice(source, sent.messageId());
        Message inDlq = awaitInDlq(source, dlq);
        assertEquals(sent.messageId(), inDlq.messageId());
        assertEquals("late policy", inDlq.body());
    }

    @Test
    void fifoMessageMovesToTheFifoDlqAndUnblocksItsGroup() {
        String dlq = createFifoQueue(broker, "fdlq");
        String source = createFifoQueue(broker, "fsrc", Map.of("VisibilityTimeout", "1"));
        sqs().setQueueAttributes(r -> r.queueUrl(source)
                .attributesWithStrings(Map.of("RedrivePolicy", redrivePolicy(arnOf(broker, dlq), 2))));
        Map<String, MessageAttributeValue> attrs = attributes();
        SendMessageResponse poison = sqs().sendMessage(r -> r.queueUrl(source)
                .messageBody("poison")
                .messageGroupId("orders-42")
                .messageDeduplicationId("p1")
                .messageAttributes(attrs));
        SendMessageResponse next = sqs().sendMessage(r -> r.queueUrl(source)
                .messageBody("next")
                .messageGroupId("orders-42")
                .messageDeduplicationId("p2"));

        receiveTwice(source, poison.messageId());

        // The next message of the group must not come before the poison message left the source.
        Message[] afterMove = new Message[1];
        try {
            await().atMost(Duration.ofSeconds(6))
                    .pollInterval(Duration.ofMillis(100))
                    .until(() -> {
                        for (Message m : receiveAll(sqs(), source, 1, 30)) {
                            assertEquals("next", m.body(), "the poison message was delivered a third time");
                            afterMove[0] = m;
                        }
                        return "1".equals(broker.attribute(dlq, "ApproximateNumberOfMessages"));
                    });
        } catch (ConditionTimeoutException e) {
            fail("the FIFO message never reached the FIFO DLQ");
        }
        List<Message> got = receiveAll(sqs(), dlq, 10, 30);
        assertEquals(1, got.size());
        Message inDlq = got.get(0);
        assertEquals(poison.messageId(), inDlq.messageId());
        assertEquals("poison", inDlq.body());
        assertEquals(attrs, inDlq.messageAttributes());
        assertEquals("orders-42", inDlq.attributesAsStrings().get("MessageGroupId"), "the group id is kept");
        assertReceiveCountCarried(inDlq);

        // The group is unblocked in the source: "next" comes now.
        if (afterMove[0] == null) {
            afterMove[0] = await().atMost(Duration.ofSeconds(3))
                    .pollInterval(Duration.ofMillis(50))
                    .until(() -> receiveAll(sqs(), source, 1, 30), l -> !l.isEmpty())
                    .get(0);
        }
        assertEquals(next.messageId(), afterMove[0].messageId());
        sqs().deleteMessage(r -> r.queueUrl(source).receiptHandle(afterMove[0].receiptHandle()));
        awaitAttribute(broker, source, "ApproximateNumberOfMessages", "0");
        awaitAttribute(broker, source, "ApproximateNumberOfMessagesNotVisible", "0");
    }

    @Test
    void maxReceiveCountOneMovesOnTheSecondReceiveAttempt() {
        String dlq = broker.createQueue("dlq1");
        String source = broker.createQueue(
                "src1", Map.of("VisibilityTimeout", "1", "RedrivePolicy", redrivePolicy(arnOf(broker, dlq), 1)));
        for (int i = 0; i < 3; i++) {
            int n = i;
            sqs().sendMessage(r -> r.queueUrl(source).messageBody("m" + n));
        }
        FifoSupport.redriveAll(broker, source, dlq, 3);
        List<Message> got = receiveAll(sqs(), dlq, 10, 30);
        assertEquals(
                Set.of("m0", "m1", "m2"),
                Set.copyOf(got.stream().map(Message::body).toList()));
        awaitAttribute(broker, source, "ApproximateNumberOfMessages", "0");
        awaitAttribute(broker, source, "ApproximateNumberOfMessagesNotVisible", "0");
    }
}
