package io.sluice.it;

import static io.sluice.it.FifoSupport.bodiesByGroup;
import static io.sluice.it.FifoSupport.createFifoQueue;
import static io.sluice.it.FifoSupport.drain;
import static io.sluice.it.FifoSupport.groupOf;
import static io.sluice.it.FifoSupport.receiveAll;
import static io.sluice.it.FifoSupport.sendFifo;
import static io.sluice.it.FifoSupport.seq;
import static io.sluice.it.SqsAssert.awaitAttribute;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigInteger;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchRequestEntry;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchResponse;

/**
 * Order within a message group on every receive path, and group locking: while a message of a
 * group is in flight no later message of that group is returned; other groups stay deliverable.
 */
@Timeout(30)
class FifoOrderingTest {

    private static final int GROUPS = 3;
    private static final int PER_GROUP = 12;

    @RegisterExtension
    static final BrokerExtension broker = new BrokerExtension();

    private SqsClient sqs() {
        return broker.sqs();
    }

    /** Sends PER_GROUP messages to each of GROUPS groups, interleaved, half single sends, half batches. */
    private Map<String, List<String>> sendInterleaved(String url) {
        Map<String, List<String>> expected = new LinkedHashMap<>();
        int half = PER_GROUP / 2;
        for (int i = 0; i < half; i++) {
            for (int g = 0; g < GROUPS; g++) {
                String group = "grp" + g;
                String body = group + ":" + i;
                sendFifo(sqs(), url, group, body, body);
                expected.computeIfAbsent(group, k -> new ArrayList<>()).add(body);
            }
        }
        // Batches: each batch mixes the groups; entries of one group keep their order within the batch.
        List<SendMessageBatchRequestEntry> pending = new ArrayList<>();
        for (int i = half; i < PER_GROUP; i++) {
            for (int g = 0; g < GROUPS; g++) {
                String group = "grp" + g;
                String body = group + ":" + i;
                pending.add(SendMessageBatchRequestEntry.builder()
                        .id("e" + pending.size())
                        .messageBody(body)
                        .messageGroupId(group)
                        .messageDeduplicationId(body)
                        .build());
                expected.get(group).add(body);
                if (pending.size() == 10) {
                    sendBatch(url, pending);
                    pending = new ArrayList<>();
                }
            }
        }
        if (!pending.isEmpty()) {
            sendBatch(url, pending);
        }
        return expected;
    }

    private void sendBatch(String url, List<SendMessageBatchRequestEntry> entries) {
        SendMessageBatchResponse resp =
                sqs().sendMessageBatch(r -> r.queueUrl(url).entries(entries));
        assertTrue(resp.failed().isEmpty(), "failed entries: " + resp.failed());
        assertEquals(entries.size(), resp.successful().size());
    }

    private static void assertGroupOrder(Map<String, List<String>> expected, List<Message> received) {
        assertEquals(
                expected,
                bodiesByGroup(received).entrySet().stream()
                        .collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue)),
                "every group must be received completely and in send order");
        Map<String, BigInteger> lastSeq = new LinkedHashMap<>();
        for (Message m : received) {
            BigInteger s = seq(m.attributesAsStrings().get("SequenceNumber"));
            BigInteger prev = lastSeq.put(groupOf(m), s);
            assertTrue(
                    prev == null || s.compareTo(prev) > 0,
                    "SequenceNumber must increase within group " + groupOf(m) + ": " + prev + " then " + s);
        }
    }

    @Test
    void orderWithinGroupsWhenReceivingOneAtATime() {
        String url = createFifoQueue(broker, "order1");
        Map<String, List<String>> expected = sendInterleaved(url);
        assertGroupOrder(expected, drain(sqs(), url, 1, GROUPS * PER_GROUP));
    }

    @Test
    void orderWithinGroupsWhenReceivingTenAtATime() {
        String url = createFifoQueue(broker, "order10");
        Map<String, List<String>> expected = sendInterleaved(url);
        List<Message> all = drain(sqs(), url, 10, GROUPS * PER_GROUP);
        assertGroupOrder(expected, all);
    }

    @Test
    void orderWithinGroupsWithLongPolls() {
        String url = createFifoQueue(broker, "orderlp");
        Map<String, List<String>> expected = sendInterleaved(url);
        List<Message> all = new ArrayList<>();
        await().atMost(Duration.ofSeconds(15))
                .pollInterval(Duration.ofMillis(1))
                .until(() -> {
                    List<Message> got = sqs().receiveMessage(r -> r.queueUrl(url)
                                    .maxNumberOfMessages(7)
                                    .waitTimeSeconds(1)
                                    .messageSystemAttributeNamesWithStrings("All"))
                            .messages();
                    for (Message m : got) {
                        all.add(m);
                        sqs().deleteMessage(r -> r.queueUrl(url).receiptHandle(m.receiptHandle()));
                    }
                    return all.size() >= GROUPS * PER_GROUP;
                });
        assertGroupOrder(expected, all);
    }

    @Test
    void aSingleBatchKeepsEntryOrderWithinItsGroup() {
        String url = createFifoQueue(broker, "onebatch");
        List<SendMessageBatchRequestEntry> entries = IntStream.range(0, 10)
                .mapToObj(i -> SendMessageBatchRequestEntry.builder()
                        .id("e" + i)
                        .messageBody("b" + i)
                        .messageGroupId("only")
                        .messageDeduplicationId("b" + i)
                        .build())
                .toList();
        sendBatch(url, entries);
        List<Message> got = drain(sqs(), url, 1, 10);
        assertEquals(
                IntStream.range(0, 10).mapToObj(i -> "b" + i).toList(),
                got.stream().map(Message::body).toList());
    }

    @Test
    void inFlightGroupBlocksItsLaterMessagesButNotOtherGroups() {
        String url = createFifoQueue(broker, "lock");
        for (int i = 1; i <= 3; i++) {
            sendFifo(sqs(), url, "A", "A" + i, "A" + i);
        }
        for (int i = 1; i <= 2; i++) {
            sendFifo(sqs(), url, "B", "B" + i, "B" + i);
        }

        List<Message> first = receiveAll(sqs(), url, 1, 30);
        assertEquals(1, first.size(), "one message available: " + first);
        Message head = first.get(0);
        String locked = groupOf(head);
        String other = locked.equals("A") ? "B" : "A";
        assertEquals(locked + "1", head.body(), "the first message of a group comes first");

        // The other group is still deliverable; nothing more of the locked group is.
        List<Message> second = receiveAll(sqs(), url, 10, 30);
        assertFalse(second.isEmpty(), "the other group must stay deliverable while " + locked + " is in flight");
        for (Message m : second) {
            assertEquals(
                    other, groupOf(m), "a later message of in-flight group " + locked + " was returned: " + m.body());
        }
        assertEquals(other + "1", second.get(0).body(), "group " + other + " starts at its first message");
        for (int i = 0; i < second.size(); i++) {
            assertEquals(other + (i + 1), second.get(i).body(), "several messages of one group come in order");
        }

        // Both groups now have a message in flight: nothing is receivable.
        assertTrue(receiveAll(sqs(), url, 10, 30).isEmpty(), "both groups are in flight");
        List<Message> longPoll = sqs().receiveMessage(
                        r -> r.queueUrl(url).maxNumberOfMessages(10).waitTimeSeconds(1))
                .messages();
        assertTrue(longPoll.isEmpty(), "a long poll must not return a message of an in-flight group: " + longPoll);

        // Deleting the head releases the group: the next message of it comes.
        sqs().deleteMessage(r -> r.queueUrl(url).receiptHandle(head.receiptHandle()));
        List<Message> third = receiveAll(sqs(), url, 10, 30);
        assertFalse(third.isEmpty(), "after deleting " + head.body() + " its group is deliverable again");
        assertEquals(locked + "2", third.get(0).body());
        for (Message m : third) {
            assertEquals(locked, groupOf(m), "group " + other + " is still in flight: " + m.body());
        }
    }

    @Test
    void deletingOneOfSeveralInFlightMessagesOfAGroupDoesNotReleaseIt() {
        String url = createFifoQueue(broker, "partial");
        for (int i = 1; i <= 4; i++) {
            sendFifo(sqs(), url, "G", "G" + i, "G" + i);
        }
        List<Message> got = receiveAll(sqs(), url, 2, 30);
        assertFalse(got.isEmpty());
        assertEquals("G1", got.get(0).body());
        if (got.size() == 2) {
            assertEquals("G2", got.get(1).body());
            // G1 deleted, G2 still in flight: G3 must not be returned yet.
            sqs().deleteMessage(r -> r.queueUrl(url).receiptHandle(got.get(0).receiptHandle()));
            assertTrue(
                    receiveAll(sqs(), url, 10, 30).isEmpty(),
                    "G3 returned while G2 of the same group is still in flight");
            sqs().deleteMessage(r -> r.queueUrl(url).receiptHandle(got.get(1).receiptHandle()));
        } else {
            sqs().deleteMessage(r -> r.queueUrl(url).receiptHandle(got.get(0).receiptHandle()));
        }
        List<Message> next = receiveAll(sqs(), url, 1, 30);
        assertEquals(1, next.size());
        assertEquals(got.size() == 2 ? "G3" : "G2", next.get(0).body());
    }

    @Test
    void visibilityExpiryRedeliversTheHeadOfTheGroupBeforeLaterMessages() {
        String url = createFifoQueue(broker, "expiry");
        for (int i = 1; i <= 3; i++) {
            sendFifo(sqs(), url, "G", "G" + i, "G" + i);
        }
        List<Message> first = receiveAll(sqs(), url, 1, 1);
        assertEquals("G1", first.get(0).body());
        assertTrue(receiveAll(sqs(), url, 10, 1).isEmpty(), "G2 returned while G1 is in flight");

        List<Message> again = await().atMost(Duration.ofSeconds(5))
                .pollInterval(Duration.ofMillis(50))
                .until(() -> receiveAll(sqs(), url, 1, 30), l -> !l.isEmpty());
        assertEquals("G1", again.get(0).body(), "after visibility expiry the same head comes again, not G2");
        assertEquals(first.get(0).messageId(), again.get(0).messageId());
        assertEquals("2", again.get(0).attributesAsStrings().get("ApproximateReceiveCount"));
        assertTrue(receiveAll(sqs(), url, 10, 30).isEmpty(), "G2 returned while G1 is in flight again");

        sqs().deleteMessage(r -> r.queueUrl(url).receiptHandle(again.get(0).receiptHandle()));
        List<Message> rest = drain(sqs(), url, 10, 2);
        assertEquals(List.of("G2", "G3"), rest.stream().map(Message::body).toList());
        awaitAttribute(broker, url, "ApproximateNumberOfMessages", "0");
        awaitAttribute(broker, url, "ApproximateNumberOfMessagesNotVisible", "0");
    }

    @Test
    void changeVisibilityToZeroReleasesTheGroup() {
        String url = createFifoQueue(broker, "release");
        sendFifo(sqs(), url, "G", "G1", "G1");
        sendFifo(sqs(), url, "G", "G2", "G2");
        Message head = receiveAll(sqs(), url, 1, 30).get(0);
        assertEquals("G1", head.body());
        assertTrue(receiveAll(sqs(), url, 10, 30).isEmpty());
        sqs().changeMessageVisibility(
                        r -> r.queueUrl(url).receiptHandle(head.receiptHandle()).visibilityTimeout(0));
        List<Message> again = receiveAll(sqs(), url, 1, 30);
        assertEquals(1, again.size());
        assertEquals("G1", again.get(0).body(), "the released head comes again before G2");
    }
}
