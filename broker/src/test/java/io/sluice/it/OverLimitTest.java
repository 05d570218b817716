package io.sluice.it;

import static io.sluice.it.SqsAssert.OVER_LIMIT;
import static io.sluice.it.SqsAssert.assertSqsError;
import static io.sluice.it.SqsAssert.awaitAttribute;
import static io.sluice.it.SqsAssert.receive;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.OverLimitException;

/** In-flight quota: a node whose standard queues allow only 3 messages in flight. */
@Timeout(30)
class OverLimitTest {

    private static final int LIMIT = 3;

    @RegisterExtension
    static final BrokerExtension broker = new BrokerExtension("--in-flight-limit", String.valueOf(LIMIT));

    private SqsClient sqs() {
        return broker.sqs();
    }

    @Test
    void shortPollAtTheLimitIsOverLimitAndLongPollIsEmpty() {
        String url = broker.createQueue("quota");
        for (int i = 0; i < 6; i++) {
            int n = i;
            sqs().sendMessage(r -> r.queueUrl(url).messageBody("m" + n));
        }
        List<Message> inFlight =
                receive(sqs(), r -> r.queueUrl(url).maxNumberOfMessages(LIMIT).visibilityTimeout(30));
        assertEquals(LIMIT, inFlight.size());
        awaitAttribute(broker, url, "ApproximateNumberOfMessagesNotVisible", String.valueOf(LIMIT));

        assertSqsError(
                OverLimitException.class,
                OVER_LIMIT,
                403,
                () -> sqs().receiveMessage(r -> r.queueUrl(url).maxNumberOfMessages(1)));
        assertSqsError(
                OverLimitException.class,
                OVER_LIMIT,
                403,
                () -> sqs().receiveMessage(
                                r -> r.queueUrl(url).maxNumberOfMessages(10).waitTimeSeconds(0)));

        long start = System.nanoTime();
        List<Message> longPoll = sqs().receiveMessage(
                        r -> r.queueUrl(url).maxNumberOfMessages(10).waitTimeSeconds(1))
                .messages();
        assertTrue(longPoll.isEmpty(), "a long poll over the limit returns nothing new: " + longPoll);
        assertTrue((System.nanoTime() - start) / 1_000_000 < 4000, "long poll over the limit must still end");
        awaitAttribute(broker, url, "ApproximateNumberOfMessages", "3");

        // Deleting one frees one slot.
        sqs().deleteMessage(r -> r.queueUrl(url).receiptHandle(inFlight.get(0).receiptHandle()));
        List<Message> again = receive(sqs(), r -> r.queueUrl(url).maxNumberOfMessages(1));
        assertEquals(1, again.size());
        assertSqsError(
                OverLimitException.class,
                OVER_LIMIT,
                403,
                () -> sqs().receiveMessage(r -> r.queueUrl(url).maxNumberOfMessages(1)));

        // Releasing (visibility 0) also frees slots.
        sqs().changeMessageVisibility(r ->
                r.queueUrl(url).receiptHandle(inFlight.get(1).receiptHandle()).visibilityTimeout(0));
        assertEquals(
                1, receive(sqs(), r -> r.queueUrl(url).maxNumberOfMessages(1)).size());
    }

    @Test
    void receiveNeverPushesInFlightBeyondTheLimit() {
        String url = broker.createQueue("cap");
        for (int i = 0; i < 8; i++) {
            sqs().sendMessage(r -> r.queueUrl(url).messageBody("m"));
        }
        List<Message> got = receive(sqs(), r -> r.queueUrl(url).maxNumberOfMessages(10));
        assertTrue(got.size() <= LIMIT, "received " + got.size() + " with an in-flight limit of " + LIMIT);
        int notVisible = Integer.parseInt(broker.attribute(url, "ApproximateNumberOfMessagesNotVisible"));
        assertTrue(notVisible <= LIMIT, "in flight: " + notVisible);
    }

    @Test
    void limitIsPerQueue() {
        String full = broker.createQueue("full");
        String other = broker.createQueue("other");
        for (int i = 0; i < LIMIT; i++) {
            sqs().sendMessage(r -> r.queueUrl(full).messageBody("m"));
        }
        assertEquals(
                LIMIT,
                receive(sqs(), r -> r.queueUrl(full).maxNumberOfMessages(LIMIT)).size());
        sqs().sendMessage(r -> r.queueUrl(other).messageBody("free"));
        assertEquals(1, receive(sqs(), other).size(), "another queue is not affected");
    }
}
