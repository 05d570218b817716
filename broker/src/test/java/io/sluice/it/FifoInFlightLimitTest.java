package io.sluice.it;

import static io.sluice.it.FifoSupport.createFifoQueue;
import static io.sluice.it.FifoSupport.receiveAll;
import static io.sluice.it.FifoSupport.sendFifo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.Message;

/** FIFO in-flight quota: a node whose FIFO queues allow only 3 messages in flight; receives get no error. */
@Timeout(30)
class FifoInFlightLimitTest {

    private static final int LIMIT = 3;

    @RegisterExtension
    static final BrokerExtension broker = new BrokerExtension("--fifo-in-flight-limit", String.valueOf(LIMIT));

    private SqsClient sqs() {
        return broker.sqs();
    }

    private int notVisible(String url) {
        return Integer.parseInt(broker.attribute(url, "ApproximateNumberOfMessagesNotVisible"));
    }

    @Test
    void receivesStopAtTheLimitWithoutAnError() {
        String url = createFifoQueue(broker, "quota");
        for (int g = 0; g < 8; g++) {
            sendFifo(sqs(), url, "g" + g, "m" + g, "m" + g);
        }
        List<Message> inFlight = new ArrayList<>(receiveAll(sqs(), url, 10, 30));
        assertTrue(
                inFlight.size() <= LIMIT, "received " + inFlight.size() + " with a FIFO in-flight limit of " + LIMIT);
        // Further short polls: no OverLimit error, nothing beyond the limit.
        for (int i = 0; i < 3; i++) {
            inFlight.addAll(receiveAll(sqs(), url, 10, 30));
        }
        assertEquals(LIMIT, inFlight.size(), "receives fill the quota, then return nothing more: " + inFlight);
        assertTrue(notVisible(url) <= LIMIT, "in flight: " + notVisible(url));

        List<Message> longPoll = sqs().receiveMessage(
                        r -> r.queueUrl(url).maxNumberOfMessages(10).waitTimeSeconds(1))
                .messages();
        assertTrue(longPoll.isEmpty(), "a long poll at the FIFO quota returns nothing: " + longPoll);

        // Deleting one frees one slot.
        sqs().deleteMessage(r -> r.queueUrl(url).receiptHandle(inFlight.get(0).receiptHandle()));
        List<Message> more = receiveAll(sqs(), url, 10, 30);
        assertEquals(1, more.size(), "one slot was freed: " + more);
        assertTrue(receiveAll(sqs(), url, 10, 30).isEmpty());
        assertTrue(notVisible(url) <= LIMIT, "in flight: " + notVisible(url));
    }

    @Test
    void oneGroupReceiveOfTenStopsAtTheLimitInOrder() {
        String url = createFifoQueue(broker, "onegroup");
        for (int i = 0; i < 6; i++) {
            sendFifo(sqs(), url, "g", "m" + i, "m" + i);
        }
        List<Message> got = receiveAll(sqs(), url, 10, 30);
        assertTrue(!got.isEmpty() && got.size() <= LIMIT, "received " + got.size() + " with a limit of " + LIMIT);
        for (int i = 0; i < got.size(); i++) {
            assertEquals("m" + i, got.get(i).body());
        }
        assertTrue(receiveAll(sqs(), url, 10, 30).isEmpty());
    }

    @Test
    void limitIsPerQueue() {
        String full = createFifoQueue(broker, "full");
        String other = createFifoQueue(broker, "other");
        for (int g = 0; g < LIMIT + 2; g++) {
            sendFifo(sqs(), full, "g" + g, "m" + g, "m" + g);
        }
        int taken = 0;
        for (int i = 0; i < 3; i++) {
            taken += receiveAll(sqs(), full, 10, 30).size();
        }
        assertEquals(LIMIT, taken);
        sendFifo(sqs(), other, "g", "free", "free");
        assertEquals(1, receiveAll(sqs(), other, 10, 30).size(), "another FIFO queue is not affected");
    }
}
