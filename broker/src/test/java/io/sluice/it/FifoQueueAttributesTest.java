package io.sluice.it;

import static io.sluice.it.FifoSupport.assertErrorCode;
import static io.sluice.it.FifoSupport.createFifoQueue;
import static io.sluice.it.FifoSupport.fifoName;
import static io.sluice.it.SqsAssert.INVALID_ATTRIBUTE_NAME;
import static io.sluice.it.SqsAssert.INVALID_ATTRIBUTE_VALUE;
import static io.sluice.it.SqsAssert.INVALID_PARAMETER_VALUE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.services.sqs.SqsClient;

/** Creating FIFO queues: the name/attribute pairing, FIFO-only attributes, defaults, immutability of the type. */
@Timeout(30)
class FifoQueueAttributesTest {

    @RegisterExtension
    static final BrokerExtension broker = new BrokerExtension();

    private SqsClient sqs() {
        return broker.sqs();
    }

    @Test
    void fifoNameWithFifoQueueTrueCreatesAFifoQueueWithDefaults() {
        String name = fifoName("orders");
        String url = sqs().createQueue(r -> r.queueName(name).attributesWithStrings(Map.of("FifoQueue", "true")))
                .queueUrl();
        assertEquals(broker.expectedQueueUrl(name), url);
        assertEquals(url, sqs().getQueueUrl(r -> r.queueName(name)).queueUrl());

        Map<String, String> a = broker.attributes(url);
        assertEquals("true", a.get("FifoQueue"), "All must include FifoQueue=true: " + a);
        assertEquals("false", a.get("ContentBasedDeduplication"), "default ContentBasedDeduplication: " + a);
        assertEquals("queue", a.get("DeduplicationScope"), "default DeduplicationScope: " + a);
        assertEquals("perQueue", a.get("FifoThroughputLimit"), "default FifoThroughputLimit: " + a);
        assertEquals(BrokerExtension.expectedArn(name), a.get("QueueArn"));
        assertEquals("true", broker.attribute(url, "FifoQueue"), "FifoQueue asked by name");

        // Same name and attributes again: idempotent, same URL.
        String again = sqs().createQueue(r -> r.queueName(name).attributesWithStrings(Map.of("FifoQueue", "true")))
                .queueUrl();
        assertEquals(url, again);
        assertTrue(
                sqs().listQueues(r -> r.queueNamePrefix(name.substring(0, name.length() - 5)))
                        .queueUrls()
                        .contains(url),
                "ListQueues shows the FIFO queue");
    }

    @Test
    void fifoAttributesCanBeGivenOnCreateAndSet() {
        String url = createFifoQueue(
                broker,
                "ht",
                Map.of(
                        "ContentBasedDeduplication", "true",
                        "DeduplicationScope", "messageGroup",
                        "FifoThroughputLimit", "perMessageGroupId"));
        Map<String, String> a = broker.attributes(url);
        assertEquals("true", a.get("ContentBasedDeduplication"));
        assertEquals("messageGroup", a.get("DeduplicationScope"));
        assertEquals("perMessageGroupId", a.get("FifoThroughputLimit"));

        sqs().setQueueAttributes(r -> r.queueUrl(url)
                .attributesWithStrings(Map.of(
                        "ContentBasedDeduplication", "false",
                        "DeduplicationScope", "queue",
                        "FifoThroughputLimit", "perQueue")));
        Map<String, String> b = broker.attributes(url);
        assertEquals("false", b.get("ContentBasedDeduplication"));
        assertEquals("queue", b.get("DeduplicationScope"));
        assertEquals("perQueue", b.get("FifoThroughputLimit"));
        assertEquals("true", b.get("FifoQueue"));
    }

    @Test
    void fifoNameWithoutFifoQueueTrueIsInvalidParameterValue() {
        String name = fifoName("noattr");
        assertErrorCode(
                INVALID_PARAMETER_VALUE,
                () -> sqs().createQueue(r -> r.queueName(name)),
                "CreateQueue " + name + " without FifoQueue");
        assertErrorCode(
                INVALID_PARAMETER_VALUE,
                () -> sqs().createQueue(r -> r.queueName(name).attributesWithStrings(Map.of("FifoQueue", "false"))),
                "CreateQueue " + name + " with FifoQueue=false");
        assertTrue(
                sqs().listQueues(r -> r.queueNamePrefix(name.substring(0, name.length() - 5)))
                        .queueUrls()
                        .isEmpty(),
                "a refused CreateQueue creates nothing");
    }

    @Test
    void fifoQueueTrueWithoutFifoSuffixIsInvalidParameterValue() {
        String name = BrokerExtension.uniqueName("nosuffix");
        assertErrorCode(
                INVALID_PARAMETER_VALUE,
                () -> sqs().createQueue(r -> r.queueName(name).attributesWithStrings(Map.of("FifoQueue", "true"))),
                "CreateQueue " + name + " with FifoQueue=true");
        assertTrue(
                sqs().listQueues(r -> r.queueNamePrefix(name)).queueUrls().isEmpty(),
                "a refused CreateQueue creates nothing");
    }

    @Test
    void queueTypeCannotBeChangedBySetQueueAttributes() {
        String fifo = createFifoQueue(broker, "typed");
        for (String value : List.of("true", "false")) {
            // SQS: the attribute exists on a FIFO queue, so its value is what is refused
            assertErrorCode(
                    INVALID_ATTRIBUTE_VALUE,
                    () -> sqs().setQueueAttributes(
                                    r -> r.queueUrl(fifo).attributesWithStrings(Map.of("FifoQueue", value))),
                    "SetQueueAttributes FifoQueue=" + value + " on a FIFO queue");
        }
        String standard = broker.createQueue("typedstd");
        assertErrorCode(
                INVALID_ATTRIBUTE_NAME,
                () -> sqs().setQueueAttributes(
                                r -> r.queueUrl(standard).attributesWithStrings(Map.of("FifoQueue", "true"))),
                "SetQueueAttributes FifoQueue=true on a standard queue");
        assertEquals("true", broker.attribute(fifo, "FifoQueue"));
        assertTrue(!"true".equals(broker.attributes(standard).get("FifoQueue")), "standard queue stays standard");
    }

    @Test
    void fifoOnlyAttributesOnAStandardQueueAreInvalidAttributeName() {
        String standard = broker.createQueue("stdonly");
        List<Map<String, String>> fifoOnly = List.of(
                Map.of("ContentBasedDeduplication", "true"),
                Map.of("DeduplicationScope", "messageGroup"),
                Map.of("FifoThroughputLimit", "perMessageGroupId"));
        for (Map<String, String> attrs : fifoOnly) {
            assertErrorCode(
                    INVALID_ATTRIBUTE_NAME,
                    () -> sqs().setQueueAttributes(r -> r.queueUrl(standard).attributesWithStrings(attrs)),
                    "SetQueueAttributes " + attrs + " on a standard queue");
            String name = BrokerExtension.uniqueName("stdcreate");
            assertErrorCode(
                    INVALID_ATTRIBUTE_NAME,
                    () -> sqs().createQueue(r -> r.queueName(name).attributesWithStrings(attrs)),
                    "CreateQueue standard with " + attrs);
        }
        Map<String, String> a = broker.attributes(standard);
        assertTrue(
                !a.containsKey("ContentBasedDeduplication")
                        && !a.containsKey("DeduplicationScope")
                        && !a.containsKey("FifoThroughputLimit"),
                "standard queue shows no FIFO-only attributes: " + a);
    }
}
