package io.sluice.it;

import static io.sluice.it.SqsAssert.INVALID_MESSAGE_CONTENTS;
import static io.sluice.it.SqsAssert.INVALID_PARAMETER_VALUE;
import static io.sluice.it.SqsAssert.RECEIPT_HANDLE_IS_INVALID;
import static io.sluice.it.SqsAssert.assertNotBlank;
import static io.sluice.it.SqsAssert.assertNothingReceivable;
import static io.sluice.it.SqsAssert.assertSqsError;
import static io.sluice.it.SqsAssert.awaitAttribute;
import static io.sluice.it.SqsAssert.awaitMessage;
import static io.sluice.it.SqsAssert.md5OfBody;
import static io.sluice.it.SqsAssert.receive;
import static io.sluice.it.SqsAssert.receiveOne;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.InvalidMessageContentsException;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.MessageAttributeValue;
import software.amazon.awssdk.services.sqs.model.MessageSystemAttributeName;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;
import software.amazon.awssdk.services.sqs.model.ReceiptHandleIsInvalidException;
import software.amazon.awssdk.services.sqs.model.SendMessageResponse;
import software.amazon.awssdk.services.sqs.model.SqsException;

/** SendMessage / ReceiveMessage / DeleteMessage through the SDK v2, with delays, size and content rules. */
@Timeout(30)
class MessageApiTest {

    @RegisterExtension
    static final BrokerExtension broker = new BrokerExtension();

    private SqsClient sqs() {
        return broker.sqs();
    }

    @Test
    void sendReceiveDeleteRoundTrip() {
        String url = broker.createQueue("rt");
        String body = "hello, sluice";
        SendMessageResponse sent = sqs().sendMessage(r -> r.queueUrl(url).messageBody(body));
        assertNotBlank(sent.messageId(), "MessageId");
        assertEquals(md5OfBody(body), sent.md5OfMessageBody());
        assertEquals(null, sent.md5OfMessageAttributes(), "no attributes → no MD5OfMessageAttributes");

        Message m = receiveOne(sqs(), url);
        assertEquals(sent.messageId(), m.messageId());
        assertEquals(body, m.body());
        assertEquals(md5OfBody(body), m.md5OfBody());
        assertNotBlank(m.receiptHandle(), "ReceiptHandle");
        assertTrue(m.messageAttributes().isEmpty());

        awaitAttribute(broker, url, "ApproximateNumberOfMessagesNotVisible", "1");
        sqs().deleteMessage(r -> r.queueUrl(url).receiptHandle(m.receiptHandle()));
        awaitAttribute(broker, url, "ApproximateNumberOfMessagesNotVisible", "0");
        awaitAttribute(broker, url, "ApproximateNumberOfMessages", "0");
        assertNothingReceivable(sqs(), url);
    }

    @Test
    void unicodeAndXmlCharactersRoundTrip() {
        String url = broker.createQueue("unicode");
        String body = "tab\there\nnewline\r<xml attr=\"v\">&amp;</xml> é ☃ 😀 \uE000 \uFFFD end";
        SendMessageResponse sent = sqs().sendMessage(r -> r.queueUrl(url).messageBody(body));
        assertEquals(md5OfBody(body), sent.md5OfMessageBody());
        Message m = receiveOne(sqs(), url);
        assertEquals(body, m.body());
        assertEquals(md5OfBody(body), m.md5OfBody());
    }

    @Test
    void receiveReturnsAtMostMaxNumberOfMessagesAndDistinctMessages() {
        String url = broker.createQueue("many");
        for (int i = 0; i < 15; i++) {
            int n = i;
            sqs().sendMessage(r -> r.queueUrl(url).messageBody("m" + n));
        }
        List<Message> first = receive(sqs(), r -> r.queueUrl(url).maxNumberOfMessages(10));
        assertEquals(10, first.size(), "sampling is off: one short poll sees every partition");
        List<Message> second = receive(sqs(), r -> r.queueUrl(url).maxNumberOfMessages(10));
        assertEquals(5, second.size());
        Set<String> ids = new HashSet<>();
        first.forEach(m -> ids.add(m.messageId()));
        second.forEach(m -> ids.add(m.messageId()));
        assertEquals(15, ids.size(), "no message may be delivered twice while in flight");
        assertNothingReceivable(sqs(), url);
    }

    @Test
    void defaultMaxNumberOfMessagesIsOne() {
        String url = broker.createQueue("defmax");
        for (int i = 0; i < 3; i++) {
            sqs().sendMessage(r -> r.queueUrl(url).messageBody("x"));
        }
        assertEquals(1, sqs().receiveMessage(r -> r.queueUrl(url)).messages().size());
    }

    @Test
    void systemAttributesOnReceive() {
        String url = broker.createQueue("sysattr");
        long before = System.currentTimeMillis();
        sqs().sendMessage(r -> r.queueUrl(url).messageBody("attrs"));

        Message first = receive(
                        sqs(),
                        r -> r.queueUrl(url)
                                .maxNumberOfMessages(1)
                                .messageSystemAttributeNames(MessageSystemAttributeName.ALL))
                .get(0);
        long afterReceive = System.currentTimeMillis();
        Map<String, String> a = first.attributesAsStrings();
        assertEquals("1", a.get("ApproximateReceiveCount"), "attributes: " + a);
        long sentTs = Long.parseLong(a.get("SentTimestamp"));
        long firstRecv = Long.parseLong(a.get("ApproximateFirstReceiveTimestamp"));
        assertTrue(
                sentTs >= before - 2000 && sentTs <= afterReceive + 2000, "SentTimestamp is epoch millis: " + sentTs);
        assertTrue(
                firstRecv >= sentTs && firstRecv <= afterReceive + 2000,
                "ApproximateFirstReceiveTimestamp " + firstRecv);
        assertNotBlank(a.get("SenderId"), "SenderId");

        // Make it visible again and receive a second time.
        sqs().changeMessageVisibility(r ->
                r.queueUrl(url).receiptHandle(first.receiptHandle()).visibilityTimeout(0));
        Message second = receive(
                        sqs(),
                        r -> r.queueUrl(url)
                                .maxNumberOfMessages(1)
                                .messageSystemAttributeNames(
                                        MessageSystemAttributeName.APPROXIMATE_RECEIVE_COUNT,
                                        MessageSystemAttributeName.APPROXIMATE_FIRST_RECEIVE_TIMESTAMP,
                                        MessageSystemAttributeName.SENT_TIMESTAMP))
                .get(0);
        Map<String, String> b = second.attributesAsStrings();
        assertEquals(first.messageId(), second.messageId());
        assertEquals("2", b.get("ApproximateReceiveCount"));
        assertEquals(
                String.valueOf(firstRecv),
                b.get("ApproximateFirstReceiveTimestamp"),
                "first receive timestamp does not move");
        assertEquals(String.valueOf(sentTs), b.get("SentTimestamp"));
        assertEquals(
                Set.of("ApproximateReceiveCount", "ApproximateFirstReceiveTimestamp", "SentTimestamp"),
                b.keySet(),
                "only the requested system attributes");
        assertNotEquals(first.receiptHandle(), second.receiptHandle(), "a new receipt handle per receive");
    }

    @Test
    void legacyAttributeNamesParameterSelectsSystemAttributes() {
        String url = broker.createQueue("legacy");
        sqs().sendMessage(r -> r.queueUrl(url).messageBody("x"));
        @SuppressWarnings("deprecation")
        Message m = sqs().receiveMessage(r -> r.queueUrl(url).attributeNames(QueueAttributeName.ALL))
                .messages()
                .get(0);
        assertEquals("1", m.attributesAsStrings().get("ApproximateReceiveCount"));
        assertTrue(m.attributesAsStrings().containsKey("SentTimestamp"));

        String url2 = broker.createQueue("none");
        sqs().sendMessage(r -> r.queueUrl(url2).messageBody("x"));
        Message plain = receiveOne(sqs(), url2);
        assertTrue(plain.attributesAsStrings().isEmpty(), "no attributes unless asked: " + plain.attributesAsStrings());
    }

    @Test
    void staleReceiptHandleDeleteSucceedsAndMalformedHandleIsRejected() {
        String url = broker.createQueue("handles");
        sqs().sendMessage(r -> r.queueUrl(url).messageBody("x"));
        Message first = receiveOne(sqs(), url);
        sqs().changeMessageVisibility(r ->
                r.queueUrl(url).receiptHandle(first.receiptHandle()).visibilityTimeout(0));
        Message second = receiveOne(sqs(), url);
        assertNotEquals(first.receiptHandle(), second.receiptHandle());

        // SQS: with an older receipt handle "the request succeeds, but the message might not be deleted".
        sqs().deleteMessage(r -> r.queueUrl(url).receiptHandle(first.receiptHandle()));
        sqs().deleteMessage(r -> r.queueUrl(url).receiptHandle(second.receiptHandle()));
        awaitAttribute(broker, url, "ApproximateNumberOfMessagesNotVisible", "0");
        awaitAttribute(broker, url, "ApproximateNumberOfMessages", "0");

        assertSqsError(
                ReceiptHandleIsInvalidException.class,
                RECEIPT_HANDLE_IS_INVALID,
                new int[] {400, 404},
                () -> sqs().deleteMessage(r -> r.queueUrl(url).receiptHandle("not-a-receipt-handle")));
        assertSqsError(
                ReceiptHandleIsInvalidException.class,
                RECEIPT_HANDLE_IS_INVALID,
                new int[] {400, 404},
                () -> sqs().changeMessageVisibility(r ->
                        r.queueUrl(url).receiptHandle("%%%garbage%%%").visibilityTimeout(10)));
    }

    @Test
    void invalidBodyCharactersAreInvalidMessageContents() {
        String url = broker.createQueue("badchars");
        for (String body : List.of("nul\u0000byte", "bell\u0007", "\u0008", "\uFFFE", "\uFFFF", "esc\u001B")) {
            try {
                assertSqsError(
                        InvalidMessageContentsException.class,
                        INVALID_MESSAGE_CONTENTS,
                        400,
                        () -> sqs().sendMessage(r -> r.queueUrl(url).messageBody(body)));
            } catch (AssertionError e) {
                throw new AssertionError(
                        "body with U+" + Integer.toHexString(body.charAt(body.length() - 1)) + ": " + e.getMessage(),
                        e);
            }
        }
        awaitAttribute(broker, url, "ApproximateNumberOfMessages", "0");
    }

    @Test
    void messageSizeCountsUtf8BytesOfBodyAndAttributes() {
        String url = broker.createQueue("size", Map.of("MaximumMessageSize", "1024"));
        sqs().sendMessage(r -> r.queueUrl(url).messageBody("a".repeat(1024)));
        assertSqsError(
                SqsException.class,
                INVALID_PARAMETER_VALUE,
                400,
                () -> sqs().sendMessage(r -> r.queueUrl(url).messageBody("a".repeat(1025))));

        // 342 × '€' is 342 characters but 1026 UTF-8 bytes.
        assertSqsError(
                SqsException.class,
                INVALID_PARAMETER_VALUE,
                400,
                () -> sqs().sendMessage(r -> r.queueUrl(url).messageBody("€".repeat(342))));
        sqs().sendMessage(r -> r.queueUrl(url).messageBody("€".repeat(341)));

        // Attributes count: name + data type + value. 1000 + 1 + 6 + 17 = 1024 fits, one byte more does not.
        sqs().sendMessage(r -> r.queueUrl(url)
                .messageBody("b".repeat(1000))
                .messageAttributes(Map.of(
                        "a",
                        MessageAttributeValue.builder()
                                .dataType("String")
                                .stringValue("v".repeat(17))
                                .build())));
        assertSqsError(
                SqsException.class,
                INVALID_PARAMETER_VALUE,
                400,
                () -> sqs().sendMessage(r -> r.queueUrl(url)
                        .messageBody("b".repeat(1000))
                        .messageAttributes(Map.of(
                                "a",
                                MessageAttributeValue.builder()
                                        .dataType("String")
                                        .stringValue("v".repeat(18))
                                        .build()))));
        awaitAttribute(broker, url, "ApproximateNumberOfMessages", "3");
    }

    @Test
    void defaultMaximumMessageSizeIsOneMebibyte() {
        String url = broker.createQueue("mib");
        sqs().sendMessage(r -> r.queueUrl(url).messageBody("z".repeat(1_048_576)));
        assertSqsError(
                SqsException.class,
                INVALID_PARAMETER_VALUE,
                400,
                () -> sqs().sendMessage(r -> r.queueUrl(url).messageBody("z".repeat(1_048_577))));
        Message m = receiveOne(sqs(), url);
        assertEquals(1_048_576, m.body().length());
    }

    @Test
    void receiveParametersAreValidated() {
        String url = broker.createQueue("recvparams");
        for (int bad : new int[] {0, 11, -1}) {
            assertSqsError(
                    SqsException.class,
                    INVALID_PARAMETER_VALUE,
                    400,
                    () -> sqs().receiveMessage(r -> r.queueUrl(url).maxNumberOfMessages(bad)));
        }
        for (int bad : new int[] {21, -1}) {
            assertSqsError(
                    SqsException.class,
                    INVALID_PARAMETER_VALUE,
                    400,
                    () -> sqs().receiveMessage(r -> r.queueUrl(url).waitTimeSeconds(bad)));
        }
        assertSqsError(
                SqsException.class,
                INVALID_PARAMETER_VALUE,
                400,
                () -> sqs().receiveMessage(r -> r.queueUrl(url).visibilityTimeout(43201)));
        assertSqsError(
                SqsException.class,
                INVALID_PARAMETER_VALUE,
                400,
                () -> sqs().sendMessage(r -> r.queueUrl(url).messageBody("x").delaySeconds(901)));
        assertSqsError(
                SqsException.class,
                INVALID_PARAMETER_VALUE,
                400,
                () -> sqs().sendMessage(r -> r.queueUrl(url).messageBody("x").delaySeconds(-1)));
        // Boundaries are accepted.
        sqs().receiveMessage(r -> r.queueUrl(url).maxNumberOfMessages(1).waitTimeSeconds(0));
        sqs().receiveMessage(r ->
                r.queueUrl(url).maxNumberOfMessages(10).waitTimeSeconds(0).visibilityTimeout(43200));
    }

    @Test
    void missingRequiredParametersAreMissingParameter() {
        String url = broker.createQueue("missing");
        assertSqsError(
                SqsException.class, SqsAssert.MISSING_PARAMETER, 400, () -> sqs().sendMessage(r -> r.queueUrl(url)));
        assertSqsError(
                SqsException.class, SqsAssert.MISSING_PARAMETER, 400, () -> sqs().deleteMessage(r -> r.queueUrl(url)));
        assertSqsError(SqsException.class, SqsAssert.MISSING_PARAMETER, 400, () -> sqs().createQueue(r -> {}));
    }

    // ------------------------------------------------------------------ delays

    @Test
    void perMessageDelayHidesMessageUntilDue() {
        String url = broker.createQueue("msgdelay");
        long start = System.nanoTime();
        sqs().sendMessage(r -> r.queueUrl(url).messageBody("later").delaySeconds(2));
        awaitAttribute(broker, url, "ApproximateNumberOfMessagesDelayed", "1");
        assertEquals("0", broker.attribute(url, "ApproximateNumberOfMessages"));
        assertNothingReceivable(sqs(), url);

        Message m = awaitMessage(sqs(), url, Duration.ofSeconds(6));
        long waitedMs = (System.nanoTime() - start) / 1_000_000;
        assertEquals("later", m.body());
        assertTrue(waitedMs >= 1500, "delayed message became visible after only " + waitedMs + " ms");
        awaitAttribute(broker, url, "ApproximateNumberOfMessagesDelayed", "0");
    }

    @Test
    void queueDelayAppliesUnlessMessageOverridesIt() {
        String url = broker.createQueue("qdelay", Map.of("DelaySeconds", "1"));
        long start = System.nanoTime();
        sqs().sendMessage(r -> r.queueUrl(url).messageBody("queue-delayed"));
        assertNothingReceivable(sqs(), url);
        assertEquals("1", broker.attribute(url, "ApproximateNumberOfMessagesDelayed"));

        Message m = awaitMessage(sqs(), url, Duration.ofSeconds(5));
        assertEquals("queue-delayed", m.body());
        assertTrue((System.nanoTime() - start) / 1_000_000 >= 700, "queue delay of 1 s was not applied");

        sqs().sendMessage(r -> r.queueUrl(url).messageBody("now").delaySeconds(0));
        Message now = receiveOne(sqs(), url);
        assertEquals("now", now.body(), "DelaySeconds=0 on the message overrides the queue delay");
    }
}
