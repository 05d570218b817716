package io.sluice.it;

import static io.sluice.it.SqsAssert.INVALID_ATTRIBUTE_NAME;
import static io.sluice.it.SqsAssert.INVALID_ATTRIBUTE_VALUE;
import static io.sluice.it.SqsAssert.assertSqsError;
import static io.sluice.it.SqsAssert.awaitAttribute;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.InvalidAttributeNameException;
import software.amazon.awssdk.services.sqs.model.InvalidAttributeValueException;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;

/** GetQueueAttributes / SetQueueAttributes through the SDK v2. */
@Timeout(30)
class QueueAttributesTest {

    @RegisterExtension
    static final BrokerExtension broker = new BrokerExtension();

    private static final List<String> REPORTED = List.of(
            "ApproximateNumberOfMessages",
            "ApproximateNumberOfMessagesNotVisible",
            "ApproximateNumberOfMessagesDelayed",
            "CreatedTimestamp",
            "LastModifiedTimestamp",
            "QueueArn",
            "VisibilityTimeout",
            "MaximumMessageSize",
            "MessageRetentionPeriod",
            "DelaySeconds",
            "ReceiveMessageWaitTimeSeconds");

    private SqsClient sqs() {
        return broker.sqs();
    }

    @Test
    void allReturnsEveryAttributeWithDefaults() {
        long before = System.currentTimeMillis() / 1000;
        String url = broker.createQueue("all");
        long after = System.currentTimeMillis() / 1000;
        Map<String, String> a = broker.attributes(url);

        for (String name : REPORTED) {
            assertTrue(a.containsKey(name), "All must include " + name + ": " + a);
        }
        assertEquals("0", a.get("ApproximateNumberOfMessages"));
        assertEquals("0", a.get("ApproximateNumberOfMessagesNotVisible"));
        assertEquals("0", a.get("ApproximateNumberOfMessagesDelayed"));
        assertEquals("30", a.get("VisibilityTimeout"));
        assertEquals("1048576", a.get("MaximumMessageSize"));
        assertEquals("345600", a.get("MessageRetentionPeriod"));
        assertEquals("0", a.get("DelaySeconds"));
        assertEquals("0", a.get("ReceiveMessageWaitTimeSeconds"));
        assertEquals(BrokerExtension.expectedArn(BrokerExtension.nameOf(url)), a.get("QueueArn"));
        assertFalse("true".equals(a.get("FifoQueue")), "a standard queue is not FIFO");

        long created = Long.parseLong(a.get("CreatedTimestamp"));
        assertTrue(
                created >= before - 2 && created <= after + 2,
                "CreatedTimestamp is epoch seconds of creation: " + created + " not in [" + before + "," + after + "]");
        long modified = Long.parseLong(a.get("LastModifiedTimestamp"));
        assertTrue(modified >= created && modified <= after + 2, "LastModifiedTimestamp " + modified);
    }

    @Test
    void singleNamesReturnOnlyThoseAttributes() {
        String url = broker.createQueue("single", Map.of("VisibilityTimeout", "77"));
        Map<String, String> one = sqs().getQueueAttributes(
                        r -> r.queueUrl(url).attributeNames(QueueAttributeName.VISIBILITY_TIMEOUT))
                .attributesAsStrings();
        assertEquals(Map.of("VisibilityTimeout", "77"), one);

        Map<String, String> two = sqs().getQueueAttributes(r ->
                        r.queueUrl(url).attributeNames(QueueAttributeName.QUEUE_ARN, QueueAttributeName.DELAY_SECONDS))
                .attributesAsStrings();
        assertEquals(
                Map.of("QueueArn", BrokerExtension.expectedArn(BrokerExtension.nameOf(url)), "DelaySeconds", "0"), two);

        Map<String, String> none =
                sqs().getQueueAttributes(r -> r.queueUrl(url)).attributesAsStrings();
        assertTrue(none.isEmpty(), "no AttributeNames → no attributes: " + none);
    }

    @Test
    void unknownAttributeNameIsInvalidAttributeName() {
        String url = broker.createQueue("unknown");
        assertSqsError(
                InvalidAttributeNameException.class,
                INVALID_ATTRIBUTE_NAME,
                400,
                () -> sqs().getQueueAttributes(r -> r.queueUrl(url).attributeNamesWithStrings("NoSuchAttribute")));
        assertSqsError(
                InvalidAttributeNameException.class,
                INVALID_ATTRIBUTE_NAME,
                400,
                () -> sqs().setQueueAttributes(
                                r -> r.queueUrl(url).attributesWithStrings(Map.of("NoSuchAttribute", "1"))));
        assertSqsError(
                InvalidAttributeNameException.class,
                INVALID_ATTRIBUTE_NAME,
                400,
                () -> sqs().createQueue(r -> r.queueName(BrokerExtension.uniqueName("unk"))
                        .attributesWithStrings(Map.of("NoSuchAttribute", "1"))));
    }

    @Test
    void setQueueAttributesChangesValuesAndLastModifiedTimestamp() {
        String url = broker.createQueue("set");
        long created = Long.parseLong(broker.attribute(url, "CreatedTimestamp"));
        long modified0 = Long.parseLong(broker.attribute(url, "LastModifiedTimestamp"));

        sqs().setQueueAttributes(r -> r.queueUrl(url)
                .attributesWithStrings(Map.of(
                        "VisibilityTimeout", "120",
                        "DelaySeconds", "5",
                        "MaximumMessageSize", "1024",
                        "MessageRetentionPeriod", "60",
                        "ReceiveMessageWaitTimeSeconds", "20")));
        Map<String, String> a = broker.attributes(url);
        assertEquals("120", a.get("VisibilityTimeout"));
        assertEquals("5", a.get("DelaySeconds"));
        assertEquals("1024", a.get("MaximumMessageSize"));
        assertEquals("60", a.get("MessageRetentionPeriod"));
        assertEquals("20", a.get("ReceiveMessageWaitTimeSeconds"));
        assertEquals(String.valueOf(created), a.get("CreatedTimestamp"), "CreatedTimestamp never changes");

        // Timestamps are in seconds: keep setting until the clock has moved on by one second.
        await().atMost(Duration.ofSeconds(4))
                .pollInterval(Duration.ofMillis(200))
                .until(() -> {
                    sqs().setQueueAttributes(
                                    r -> r.queueUrl(url).attributesWithStrings(Map.of("VisibilityTimeout", "121")));
                    return Long.parseLong(broker.attribute(url, "LastModifiedTimestamp")) > modified0;
                });
        assertEquals("121", broker.attribute(url, "VisibilityTimeout"));
        assertEquals(String.valueOf(created), broker.attribute(url, "CreatedTimestamp"));
    }

    @Test
    void setQueueAttributesUpperAndLowerBoundsAreAccepted() {
        String url = broker.createQueue("bounds");
        Map<String, String> max = Map.of(
                "VisibilityTimeout", "43200",
                "DelaySeconds", "900",
                "MaximumMessageSize", "1048576",
                "MessageRetentionPeriod", "1209600",
                "ReceiveMessageWaitTimeSeconds", "20");
        sqs().setQueueAttributes(r -> r.queueUrl(url).attributesWithStrings(max));
        Map<String, String> a = broker.attributes(url);
        max.forEach((k, v) -> assertEquals(v, a.get(k), k));

        Map<String, String> min = Map.of(
                "VisibilityTimeout", "0",
                "DelaySeconds", "0",
                "MaximumMessageSize", "1024",
                "MessageRetentionPeriod", "60",
                "ReceiveMessageWaitTimeSeconds", "0");
        sqs().setQueueAttributes(r -> r.queueUrl(url).attributesWithStrings(min));
        Map<String, String> b = broker.attributes(url);
        min.forEach((k, v) -> assertEquals(v, b.get(k), k));
    }

    @Test
    void outOfRangeValuesAreInvalidAttributeValue() {
        String url = broker.createQueue("range", Map.of("VisibilityTimeout", "33"));
        List<Map<String, String>> bad = List.of(
                Map.of("VisibilityTimeout", "43201"),
                Map.of("VisibilityTimeout", "-1"),
                Map.of("VisibilityTimeout", "abc"),
                Map.of("DelaySeconds", "901"),
                Map.of("MaximumMessageSize", "1023"),
                Map.of("MaximumMessageSize", "1048577"),
                Map.of("MessageRetentionPeriod", "59"),
                Map.of("MessageRetentionPeriod", "1209601"),
                Map.of("ReceiveMessageWaitTimeSeconds", "21"));
        for (Map<String, String> attrs : bad) {
            try {
                assertSqsError(
                        InvalidAttributeValueException.class,
                        INVALID_ATTRIBUTE_VALUE,
                        400,
                        () -> sqs().setQueueAttributes(r -> r.queueUrl(url).attributesWithStrings(attrs)));
            } catch (AssertionError err) {
                throw new AssertionError("SetQueueAttributes " + attrs + ": " + err.getMessage(), err);
            }
        }
        assertEquals("33", broker.attribute(url, "VisibilityTimeout"), "a refused set changes nothing");

        assertSqsError(
                InvalidAttributeValueException.class,
                INVALID_ATTRIBUTE_VALUE,
                400,
                () -> sqs().createQueue(r -> r.queueName(BrokerExtension.uniqueName("badcreate"))
                        .attributesWithStrings(Map.of("DelaySeconds", "901"))));
    }

    @Test
    void sseAttributesAreAcceptedAndEchoed() {
        String sqsManaged = broker.createQueue("sse", Map.of("SqsManagedSseEnabled", "true"));
        assertEquals("true", broker.attributes(sqsManaged).get("SqsManagedSseEnabled"));
        assertEquals("true", broker.attribute(sqsManaged, "SqsManagedSseEnabled"));

        String kms = broker.createQueue(
                "kms",
                Map.of(
                        "KmsMasterKeyId", "alias/aws/sqs",
                        "KmsDataKeyReusePeriodSeconds", "600"));
        Map<String, String> a = broker.attributes(kms);
        assertEquals("alias/aws/sqs", a.get("KmsMasterKeyId"));
        assertEquals("600", a.get("KmsDataKeyReusePeriodSeconds"));

        sqs().setQueueAttributes(
                        r -> r.queueUrl(kms).attributesWithStrings(Map.of("KmsDataKeyReusePeriodSeconds", "900")));
        assertEquals("900", broker.attribute(kms, "KmsDataKeyReusePeriodSeconds"));
    }

    @Test
    void countersFollowMessageStates() {
        String url = broker.createQueue("counters");
        sqs().sendMessage(r -> r.queueUrl(url).messageBody("a"));
        sqs().sendMessage(r -> r.queueUrl(url).messageBody("b"));
        sqs().sendMessage(r -> r.queueUrl(url).messageBody("c").delaySeconds(30));
        awaitAttribute(broker, url, "ApproximateNumberOfMessages", "2");
        awaitAttribute(broker, url, "ApproximateNumberOfMessagesDelayed", "1");
        awaitAttribute(broker, url, "ApproximateNumberOfMessagesNotVisible", "0");

        sqs().receiveMessage(r -> r.queueUrl(url).maxNumberOfMessages(1));
        awaitAttribute(broker, url, "ApproximateNumberOfMessages", "1");
        awaitAttribute(broker, url, "ApproximateNumberOfMessagesNotVisible", "1");
        awaitAttribute(broker, url, "ApproximateNumberOfMessagesDelayed", "1");
    }

    @Test
    void policySetAsAttributeIsEchoed() {
        String url = broker.createQueue("policy");
        String arn = BrokerExtension.expectedArn(BrokerExtension.nameOf(url));
        JsonObject policy = new JsonObject()
                .put("Version", "2012-10-17")
                .put(
                        "Statement",
                        new JsonArray()
                                .add(new JsonObject()
                                        .put("Sid", "custom")
                                        .put("Effect", "Allow")
                                        .put("Principal", "*")
                                        .put("Action", "sqs:SendMessage")
                                        .put("Resource", arn)));
        sqs().setQueueAttributes(r -> r.queueUrl(url).attributesWithStrings(Map.of("Policy", policy.encode())));
        assertEquals(policy, new JsonObject(broker.attribute(url, "Policy")));
    }
}
