package io.sluice.it;

import static io.sluice.it.FifoSupport.createFifoQueue;
import static io.sluice.it.FifoSupport.drain;
import static io.sluice.it.FifoSupport.receiveAll;
import static io.sluice.it.FifoSupport.sendFifo;
import static io.sluice.it.SqsAssert.awaitAttribute;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.MessageAttributeValue;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchRequestEntry;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchResponse;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchResultEntry;
import software.amazon.awssdk.services.sqs.model.SendMessageResponse;

/** Deduplication on FIFO queues: explicit ids, content-based, queue and message-group scope. */
@Timeout(30)
class FifoDeduplicationTest {

    @RegisterExtension
    static final BrokerExtension broker = new BrokerExtension();

    private SqsClient sqs() {
        return broker.sqs();
    }

    @Test
    void duplicateIdIsAcceptedWithTheOriginalMessageIdAndNotEnqueuedAgain() {
        String url = createFifoQueue(broker, "dup");
        SendMessageResponse first = sendFifo(sqs(), url, "g", "same", "one");
        SendMessageResponse second = sendFifo(sqs(), url, "g", "same", "one");
        SendMessageResponse third = sendFifo(sqs(), url, "g", "same", "other body, same id");
        assertEquals(first.messageId(), second.messageId(), "a duplicate is answered with the original MessageId");
        assertEquals(first.messageId(), third.messageId(), "the dedup id decides, not the body");
        awaitAttribute(broker, url, "ApproximateNumberOfMessages", "1");

        List<Message> got = drain(sqs(), url, 10, 1);
        assertEquals("one", got.get(0).body());
        assertTrue(receiveAll(sqs(), url, 10, null).isEmpty(), "the duplicate was enqueued");
    }

    @Test
    void duplicateAfterTheOriginalWasDeletedIsStillNotEnqueued() {
        String url = createFifoQueue(broker, "dupdel");
        SendMessageResponse first = sendFifo(sqs(), url, "g", "d1", "x");
        drain(sqs(), url, 10, 1);
        awaitAttribute(broker, url, "ApproximateNumberOfMessages", "0");
        awaitAttribute(broker, url, "ApproximateNumberOfMessagesNotVisible", "0");

        SendMessageResponse again = sendFifo(sqs(), url, "g", "d1", "x");
        assertEquals(first.messageId(), again.messageId());
        assertTrue(receiveAll(sqs(), url, 10, null).isEmpty(), "re-sent after delete within 5 min: must not come back");
        awaitAttribute(broker, url, "ApproximateNumberOfMessages", "0");
    }

    @Test
    void defaultScopeIsTheWholeQueueWhateverTheGroup() {
        String url = createFifoQueue(broker, "qscope");
        SendMessageResponse first = sendFifo(sqs(), url, "group-0", "shared", "first");
        // Many groups so that they map to different partitions.
        for (int g = 1; g < 12; g++) {
            String group = "group-" + g;
            SendMessageResponse dup = sendFifo(sqs(), url, group, "shared", "dup in " + group);
            assertEquals(first.messageId(), dup.messageId(), "dedup scope queue: same id in " + group);
        }
        awaitAttribute(broker, url, "ApproximateNumberOfMessages", "1");
        assertEquals(
                List.of("first"),
                drain(sqs(), url, 10, 1).stream().map(Message::body).toList());
    }

    @Test
    void distinctIdsAreDistinctMessagesEvenWithTheSameBody() {
        String url = createFifoQueue(broker, "distinct");
        SendMessageResponse a = sendFifo(sqs(), url, "g", "a", "same body");
        SendMessageResponse b = sendFifo(sqs(), url, "g", "b", "same body");
        assertNotEquals(a.messageId(), b.messageId());
        awaitAttribute(broker, url, "ApproximateNumberOfMessages", "2");
        drain(sqs(), url, 10, 2);
    }

    @Test
    void contentBasedDeduplicationUsesTheBodyAndAnExplicitIdWins() {
        String url = createFifoQueue(broker, "cbd", Map.of("ContentBasedDeduplication", "true"));
        SendMessageResponse first =
                sqs().sendMessage(r -> r.queueUrl(url).messageGroupId("g").messageBody("hello"));
        SendMessageResponse second =
                sqs().sendMessage(r -> r.queueUrl(url).messageGroupId("g").messageBody("hello"));
        assertEquals(first.messageId(), second.messageId(), "identical bodies are duplicates");
        // Attributes are not part of the content hash: still a duplicate.
        SendMessageResponse withAttr = sqs().sendMessage(r -> r.queueUrl(url)
                .messageGroupId("g2")
                .messageBody("hello")
                .messageAttributes(Map.of(
                        "k",
                        MessageAttributeValue.builder()
                                .dataType("String")
                                .stringValue("v")
                                .build())));
        assertEquals(first.messageId(), withAttr.messageId(), "the body hash alone decides (queue scope)");

        SendMessageResponse differentBody =
                sqs().sendMessage(r -> r.queueUrl(url).messageGroupId("g").messageBody("world"));
        assertNotEquals(first.messageId(), differentBody.messageId());

        // An explicit id wins over the body hash: same body, new explicit id → a new message.
        SendMessageResponse explicit = sendFifo(sqs(), url, "g", "explicit-1", "hello");
        assertNotEquals(first.messageId(), explicit.messageId(), "explicit MessageDeduplicationId wins over the hash");
        // ... and the explicit id dedups a different body.
        SendMessageResponse explicitDup = sendFifo(sqs(), url, "g", "explicit-1", "another body");
        assertEquals(explicit.messageId(), explicitDup.messageId());

        awaitAttribute(broker, url, "ApproximateNumberOfMessages", "3");
        List<Message> got = drain(sqs(), url, 10, 3);
        assertEquals(
                List.of("hello", "world", "hello"),
                got.stream().map(Message::body).toList());
        assertNotEquals(
                null,
                got.get(0).attributesAsStrings().get("MessageDeduplicationId"),
                "a content-based dedup id is reported on receive");
        assertEquals("explicit-1", got.get(2).attributesAsStrings().get("MessageDeduplicationId"));
    }

    @Test
    void contentBasedDeduplicationCanBeSwitchedOnLater() {
        String url = createFifoQueue(broker, "cbdlater");
        sqs().setQueueAttributes(
                        r -> r.queueUrl(url).attributesWithStrings(Map.of("ContentBasedDeduplication", "true")));
        SendMessageResponse a =
                sqs().sendMessage(r -> r.queueUrl(url).messageGroupId("g").messageBody("x"));
        SendMessageResponse b =
                sqs().sendMessage(r -> r.queueUrl(url).messageGroupId("g").messageBody("x"));
        assertEquals(a.messageId(), b.messageId());
        awaitAttribute(broker, url, "ApproximateNumberOfMessages", "1");
    }

    @Test
    void duplicatesInsideOneBatchAndAcrossBatches() {
        String url = createFifoQueue(broker, "batchdup");
        List<SendMessageBatchRequestEntry> entries = List.of(
                SendMessageBatchRequestEntry.builder()
                        .id("e0")
                        .messageBody("a")
                        .messageGroupId("g")
                        .messageDeduplicationId("d-a")
                        .build(),
                SendMessageBatchRequestEntry.builder()
                        .id("e1")
                        .messageBody("a again")
                        .messageGroupId("g")
                        .messageDeduplicationId("d-a")
                        .build(),
                SendMessageBatchRequestEntry.builder()
                        .id("e2")
                        .messageBody("b")
                        .messageGroupId("g")
                        .messageDeduplicationId("d-b")
                        .build());
        SendMessageBatchResponse resp =
                sqs().sendMessageBatch(r -> r.queueUrl(url).entries(entries));
        assertTrue(resp.failed().isEmpty(), "failed: " + resp.failed());
        Map<String, String> ids = new HashMap<>();
        for (SendMessageBatchResultEntry e : resp.successful()) {
            ids.put(e.id(), e.messageId());
        }
        assertEquals(ids.get("e0"), ids.get("e1"), "duplicate entry inside one batch gets the original MessageId");
        assertNotEquals(ids.get("e0"), ids.get("e2"));

        SendMessageResponse later = sendFifo(sqs(), url, "g", "d-b", "b");
        assertEquals(ids.get("e2"), later.messageId());
        awaitAttribute(broker, url, "ApproximateNumberOfMessages", "2");
        assertEquals(
                List.of("a", "b"),
                drain(sqs(), url, 10, 2).stream().map(Message::body).toList());
    }

    @Test
    void messageGroupScopeDedupsPerGroup() {
        String url = createFifoQueue(
                broker,
                "gscope",
                Map.of(
                        "DeduplicationScope", "messageGroup",
                        "FifoThroughputLimit", "perMessageGroupId"));
        SendMessageResponse g1 = sendFifo(sqs(), url, "g1", "same-id", "in g1");
        SendMessageResponse g2 = sendFifo(sqs(), url, "g2", "same-id", "in g2");
        assertNotEquals(g1.messageId(), g2.messageId(), "scope messageGroup: same id in two groups = two messages");
        SendMessageResponse g1Again = sendFifo(sqs(), url, "g1", "same-id", "in g1 again");
        assertEquals(g1.messageId(), g1Again.messageId(), "same id in the same group is a duplicate");

        awaitAttribute(broker, url, "ApproximateNumberOfMessages", "2");
        List<Message> got = drain(sqs(), url, 10, 2);
        assertEquals(
                Set.of("in g1", "in g2"),
                new HashSet<>(got.stream().map(Message::body).toList()));
    }
}
