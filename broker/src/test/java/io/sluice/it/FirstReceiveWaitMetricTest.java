package io.sluice.it;

import static io.sluice.it.FifoSupport.createFifoQueue;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.services.sqs.model.Message;

/** sluice_messages_first_receive_wait_seconds counts a message once, when a consumer first gets it. */
class FirstReceiveWaitMetricTest {
    @RegisterExtension
    static final BrokerExtension broker = new BrokerExtension();

    private static final String COUNT = "sluice_messages_first_receive_wait_seconds_count";

    @Test
    void aRetriedFifoReceiveAttemptAndALaterRedeliveryAreNotFirstDeliveries() {
        String url = createFifoQueue(broker, "first-wait", Map.of("ContentBasedDeduplication", "true"));
        broker.sqs().sendMessage(r -> r.queueUrl(url).messageBody("one").messageGroupId("g"));
        double before = broker.metrics().getOrDefault(COUNT, 0.0);

        List<Message> first = broker.sqs()
                .receiveMessage(r -> r.queueUrl(url).receiveRequestAttemptId("attempt-1"))
                .messages();
        // The same attempt again: SQS answers with the same message and receipt handle.
        List<Message> retried = broker.sqs()
                .receiveMessage(r -> r.queueUrl(url).receiveRequestAttemptId("attempt-1"))
                .messages();
        assertEquals(1, first.size());
        assertEquals(first.get(0).receiptHandle(), retried.get(0).receiptHandle());
        assertEquals(before + 1, broker.metrics().get(COUNT), "the retried attempt is not a first delivery");

        // Made visible again and received a second time: not a first delivery either.
        broker.sqs()
                .changeMessageVisibility(r -> r.queueUrl(url)
                        .receiptHandle(first.get(0).receiptHandle())
                        .visibilityTimeout(0));
        List<Message> again = broker.sqs()
                .receiveMessage(r -> r.queueUrl(url).waitTimeSeconds(5))
                .messages();
        assertEquals(1, again.size());
        assertEquals(before + 1, broker.metrics().get(COUNT), "a redelivery is not a first delivery");
    }
}
