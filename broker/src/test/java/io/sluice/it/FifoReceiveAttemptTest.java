package io.sluice.it;

import static io.sluice.it.FifoSupport.assertErrorCode;
import static io.sluice.it.FifoSupport.createFifoQueue;
import static io.sluice.it.FifoSupport.receiveAll;
import static io.sluice.it.FifoSupport.sendFifo;
import static io.sluice.it.SqsAssert.INVALID_PARAMETER_VALUE;
import static io.sluice.it.SqsAssert.RECEIPT_HANDLE_IS_INVALID;
import static io.sluice.it.SqsAssert.awaitAttribute;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.Message;

/** ReceiveRequestAttemptId retries, and DeleteMessage with an expired receipt handle on FIFO queues. */
@Timeout(30)
class FifoReceiveAttemptTest {

    @RegisterExtension
    static final BrokerExtension broker = new BrokerExtension();

    private SqsClient sqs() {
        return broker.sqs();
    }

    private List<Message> receiveWithAttempt(String url, String attemptId, int max) {
        return sqs().receiveMessage(r -> r.queueUrl(url)
                        .maxNumberOfMessages(max)
                        .visibilityTimeout(30)
                        .receiveRequestAttemptId(attemptId)
                        .messageSystemAttributeNamesWithStrings("All"))
                .messages();
    }

    @Test
    void retryWithTheSameAttemptIdReturnsTheSameMessagesAndReceiptHandles() {
        String url = createFifoQueue(broker, "attempt");
        for (int i = 1; i <= 3; i++) {
            sendFifo(sqs(), url, "A", "A" + i, "A" + i);
            sendFifo(sqs(), url, "B", "B" + i, "B" + i);
        }
        List<Message> first = receiveWithAttempt(url, "attempt-1", 2);
        assertFalse(first.isEmpty());
        List<Message> retry = receiveWithAttempt(url, "attempt-1", 2);
        assertEquals(
                first.stream().map(Message::messageId).toList(),
                retry.stream().map(Message::messageId).toList(),
                "a retried receive returns the same messages");
        assertEquals(
                first.stream().map(Message::receiptHandle).toList(),
                retry.stream().map(Message::receiptHandle).toList(),
                "a retried receive returns the same receipt handles");
        assertEquals(
                first.stream().map(Message::body).toList(),
                retry.stream().map(Message::body).toList());

        // The retry did not count as a new receive.
        for (Message m : retry) {
            assertEquals("1", m.attributesAsStrings().get("ApproximateReceiveCount"), "retry of " + m.body());
        }

        // The handles work.
        for (Message m : retry) {
            sqs().deleteMessage(r -> r.queueUrl(url).receiptHandle(m.receiptHandle()));
        }
        // A new attempt id gets new messages: the next heads of the groups.
        List<Message> next = receiveWithAttempt(url, "attempt-2", 10);
        assertFalse(next.isEmpty(), "after deleting, a new attempt gets the following messages");
        Set<String> firstBodies = Set.copyOf(first.stream().map(Message::body).toList());
        for (Message m : next) {
            assertFalse(firstBodies.contains(m.body()), "deleted message came back: " + m.body());
        }
    }

    @Test
    void aRetryDoesNotReturnMoreThanTheOriginalAttemptEvenIfMoreIsAvailable() {
        String url = createFifoQueue(broker, "attemptmore");
        for (int g = 0; g < 4; g++) {
            sendFifo(sqs(), url, "g" + g, "m" + g, "m" + g);
        }
        List<Message> first = receiveWithAttempt(url, "same", 1);
        assertEquals(1, first.size());
        List<Message> retry = receiveWithAttempt(url, "same", 1);
        assertEquals(1, retry.size());
        assertEquals(first.get(0).messageId(), retry.get(0).messageId());
        assertEquals(first.get(0).receiptHandle(), retry.get(0).receiptHandle());
        // The three other groups are untouched.
        awaitAttribute(broker, url, "ApproximateNumberOfMessages", "3");
        awaitAttribute(broker, url, "ApproximateNumberOfMessagesNotVisible", "1");
        assertEquals(3, receiveAll(sqs(), url, 10, 30).size());
    }

    @Test
    void deleteWithAnExpiredReceiptHandleFailsAndTheMessageStays() {
        String url = createFifoQueue(broker, "expired");
        sendFifo(sqs(), url, "g", "d", "keep me");
        Message m = receiveAll(sqs(), url, 1, 1).get(0);
        // Visible again, not received again.
        await().atMost(Duration.ofSeconds(5))
                .pollInterval(Duration.ofMillis(50))
                .until(() -> "1".equals(broker.attribute(url, "ApproximateNumberOfMessages")));

        assertErrorCode(
                Set.of(INVALID_PARAMETER_VALUE, RECEIPT_HANDLE_IS_INVALID),
                () -> sqs().deleteMessage(r -> r.queueUrl(url).receiptHandle(m.receiptHandle())),
                "DeleteMessage on FIFO with a receipt handle whose visibility timeout expired");

        List<Message> again = receiveAll(sqs(), url, 1, 30);
        assertEquals(1, again.size(), "the message must still be there");
        assertEquals(m.messageId(), again.get(0).messageId());
        assertEquals("2", again.get(0).attributesAsStrings().get("ApproximateReceiveCount"));
        sqs().deleteMessage(r -> r.queueUrl(url).receiptHandle(again.get(0).receiptHandle()));
        awaitAttribute(broker, url, "ApproximateNumberOfMessages", "0");
        awaitAttribute(broker, url, "ApproximateNumberOfMessagesNotVisible", "0");
    }

    @Test
    void deleteWithinTheVisibilityTimeoutWorks() {
        String url = createFifoQueue(broker, "intime");
        sendFifo(sqs(), url, "g", "d", "x");
        Message m = receiveAll(sqs(), url, 1, 30).get(0);
        sqs().deleteMessage(r -> r.queueUrl(url).receiptHandle(m.receiptHandle()));
        assertTrue(receiveAll(sqs(), url, 10, 30).isEmpty());
        awaitAttribute(broker, url, "ApproximateNumberOfMessagesNotVisible", "0");
    }
}
