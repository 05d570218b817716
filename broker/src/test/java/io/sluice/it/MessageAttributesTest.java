package io.sluice.it;

import static io.sluice.it.SqsAssert.INVALID_PARAMETER_VALUE;
import static io.sluice.it.SqsAssert.assertSqsError;
import static io.sluice.it.SqsAssert.md5OfAttributes;
import static io.sluice.it.SqsAssert.receive;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.MessageAttributeValue;
import software.amazon.awssdk.services.sqs.model.MessageSystemAttributeName;
import software.amazon.awssdk.services.sqs.model.MessageSystemAttributeNameForSends;
import software.amazon.awssdk.services.sqs.model.MessageSystemAttributeValue;
import software.amazon.awssdk.services.sqs.model.SendMessageResponse;
import software.amazon.awssdk.services.sqs.model.SqsException;

/**
 * Message attributes (String, Number, Binary, custom types), MessageAttributeNames filtering and the
 * AWSTraceHeader system attribute. The SDK verifies MD5OfMessageBody and MD5OfMessageAttributes on
 * send, batch send and receive, so a wrong checksum already fails the call; the tests also compare
 * against their own computation.
 */
@Timeout(30)
class MessageAttributesTest {

    @RegisterExtension
    static final BrokerExtension broker = new BrokerExtension();

    private static final String TRACE = "Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1";

    private SqsClient sqs() {
        return broker.sqs();
    }

    private static MessageAttributeValue str(String type, String value) {
        return MessageAttributeValue.builder().dataType(type).stringValue(value).build();
    }

    private static MessageAttributeValue bin(String type, byte[] value) {
        return MessageAttributeValue.builder()
                .dataType(type)
                .binaryValue(SdkBytes.fromByteArray(value))
                .build();
    }

    private static Map<String, MessageAttributeValue> sampleAttributes() {
        Map<String, MessageAttributeValue> m = new HashMap<>();
        m.put("color", str("String", "blue ☃"));
        m.put("price", str("Number", "12.50"));
        m.put("blob", bin("Binary", new byte[] {0, 1, 2, (byte) 0xFF, 127}));
        m.put("custom", str("String.json", "{\"a\":1}"));
        m.put("trace.id", str("String", "abc"));
        m.put("trace.span", str("Number.int", "7"));
        m.put("picture", bin("Binary.png", new byte[] {(byte) 0x89, 'P', 'N', 'G'}));
        return m;
    }

    private String sendSample(String url) {
        Map<String, MessageAttributeValue> attrs = sampleAttributes();
        SendMessageResponse sent = sqs().sendMessage(
                        r -> r.queueUrl(url).messageBody("with attributes").messageAttributes(attrs));
        assertEquals(md5OfAttributes(attrs), sent.md5OfMessageAttributes());
        return sent.messageId();
    }

    private Message receiveWith(String url, String... names) {
        List<Message> got = receive(
                sqs(),
                r -> r.queueUrl(url).maxNumberOfMessages(1).visibilityTimeout(0).messageAttributeNames(names));
        assertEquals(1, got.size());
        return got.get(0);
    }

    @Test
    void allAttributeTypesRoundTripWithAll() {
        String url = broker.createQueue("types");
        sendSample(url);
        Message m = receiveWith(url, "All");
        Map<String, MessageAttributeValue> expected = sampleAttributes();
        assertEquals(expected.keySet(), m.messageAttributes().keySet());
        for (Map.Entry<String, MessageAttributeValue> e : expected.entrySet()) {
            MessageAttributeValue got = m.messageAttributes().get(e.getKey());
            assertEquals(e.getValue().dataType(), got.dataType(), "data type of " + e.getKey());
            if (e.getValue().stringValue() != null) {
                assertEquals(e.getValue().stringValue(), got.stringValue(), "value of " + e.getKey());
            } else {
                assertArrayEquals(
                        e.getValue().binaryValue().asByteArray(),
                        got.binaryValue().asByteArray(),
                        "value of " + e.getKey());
            }
        }
        assertEquals(md5OfAttributes(expected), m.md5OfMessageAttributes());
    }

    @Test
    void messageAttributeNamesFilter() {
        String url = broker.createQueue("filter");
        sendSample(url);

        assertEquals(
                sampleAttributes().keySet(),
                receiveWith(url, ".*").messageAttributes().keySet());
        assertEquals(
                Set.of("trace.id", "trace.span"),
                receiveWith(url, "trace.*").messageAttributes().keySet());
        assertEquals(
                Set.of("color"), receiveWith(url, "color").messageAttributes().keySet());
        assertEquals(
                Set.of("color", "price"),
                receiveWith(url, "color", "price").messageAttributes().keySet());
        assertEquals(Set.of(), receiveWith(url, "absent").messageAttributes().keySet());

        Message filtered = receiveWith(url, "trace.*");
        assertEquals(
                md5OfAttributes(filtered.messageAttributes()),
                filtered.md5OfMessageAttributes(),
                "MD5OfMessageAttributes covers the returned attributes");

        Message none =
                receive(sqs(), r -> r.queueUrl(url).maxNumberOfMessages(1)).get(0);
        assertTrue(none.messageAttributes().isEmpty(), "no MessageAttributeNames → no attributes");
        assertNull(none.md5OfMessageAttributes(), "no attributes returned → no MD5OfMessageAttributes");
    }

    @Test
    void invalidAttributesAreRejected() {
        String url = broker.createQueue("badattr");
        List<Map<String, MessageAttributeValue>> bad = List.of(
                Map.of("AWS.reserved", str("String", "x")),
                Map.of("Amazon.reserved", str("String", "x")),
                Map.of("bad name!", str("String", "x")),
                Map.of(".leading", str("String", "x")),
                Map.of("trailing.", str("String", "x")),
                Map.of("two..dots", str("String", "x")),
                Map.of("n", str("Number", "not-a-number")),
                Map.of("t", str("Text", "unknown type")),
                Map.of("e", str("String", "")),
                Map.of("b", str("Binary", "string value for binary type")),
                Map.of("x".repeat(257), str("String", "name too long")));
        for (Map<String, MessageAttributeValue> attrs : bad) {
            try {
                assertSqsError(
                        SqsException.class,
                        INVALID_PARAMETER_VALUE,
                        400,
                        () -> sqs().sendMessage(
                                        r -> r.queueUrl(url).messageBody("x").messageAttributes(attrs)));
            } catch (AssertionError e) {
                throw new AssertionError("attributes " + attrs.keySet() + ": " + e.getMessage(), e);
            }
        }

        Map<String, MessageAttributeValue> eleven = new HashMap<>();
        for (int i = 0; i < 11; i++) {
            eleven.put("a" + i, str("String", "v"));
        }
        assertSqsError(
                SqsException.class,
                INVALID_PARAMETER_VALUE,
                400,
                () -> sqs().sendMessage(r -> r.queueUrl(url).messageBody("x").messageAttributes(eleven)));

        Map<String, MessageAttributeValue> ten = new HashMap<>(eleven);
        ten.remove("a10");
        sqs().sendMessage(r -> r.queueUrl(url).messageBody("ten is fine").messageAttributes(ten));
    }

    @Test
    void awsTraceHeaderIsASystemAttribute() {
        String url = broker.createQueue("trace");
        MessageSystemAttributeValue trace = MessageSystemAttributeValue.builder()
                .dataType("String")
                .stringValue(TRACE)
                .build();
        SendMessageResponse sent = sqs().sendMessage(r -> r.queueUrl(url)
                .messageBody("traced")
                .messageSystemAttributes(Map.of(MessageSystemAttributeNameForSends.AWS_TRACE_HEADER, trace)));
        assertEquals(
                md5OfAttributes(Map.of("AWSTraceHeader", str("String", TRACE))),
                sent.md5OfMessageSystemAttributes(),
                "MD5OfMessageSystemAttributes");
        assertNull(sent.md5OfMessageAttributes(), "system attributes are not message attributes");

        Message m = receive(
                        sqs(),
                        r -> r.queueUrl(url)
                                .maxNumberOfMessages(1)
                                .visibilityTimeout(0)
                                .messageSystemAttributeNames(MessageSystemAttributeName.AWS_TRACE_HEADER)
                                .messageAttributeNames("All"))
                .get(0);
        assertEquals(TRACE, m.attributesAsStrings().get("AWSTraceHeader"));
        assertTrue(m.messageAttributes().isEmpty(), "AWSTraceHeader must not show up as a message attribute");

        Message all = receive(
                        sqs(),
                        r -> r.queueUrl(url)
                                .maxNumberOfMessages(1)
                                .messageSystemAttributeNames(MessageSystemAttributeName.ALL))
                .get(0);
        assertEquals(TRACE, all.attributesAsStrings().get("AWSTraceHeader"));
    }

    @Test
    void attributesSurviveBatchSend() {
        String url = broker.createQueue("batchattr");
        Map<String, MessageAttributeValue> attrs = sampleAttributes();
        var resp = sqs().sendMessageBatch(r -> r.queueUrl(url)
                .entries(
                        e -> e.id("one").messageBody("b1").messageAttributes(attrs),
                        e -> e.id("two").messageBody("b2")));
        assertEquals(2, resp.successful().size(), "failed: " + resp.failed());
        var one = resp.successful().stream()
                .filter(s -> s.id().equals("one"))
                .findFirst()
                .orElseThrow();
        var two = resp.successful().stream()
                .filter(s -> s.id().equals("two"))
                .findFirst()
                .orElseThrow();
        assertEquals(md5OfAttributes(attrs), one.md5OfMessageAttributes());
        assertNull(two.md5OfMessageAttributes());

        List<Message> got =
                receive(sqs(), r -> r.queueUrl(url).maxNumberOfMessages(10).messageAttributeNames("All"));
        assertEquals(2, got.size());
        Message withAttrs =
                got.stream().filter(m -> m.body().equals("b1")).findFirst().orElseThrow();
        assertEquals(attrs.keySet(), withAttrs.messageAttributes().keySet());
    }
}
