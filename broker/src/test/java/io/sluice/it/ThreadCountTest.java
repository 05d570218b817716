package io.sluice.it;

import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.services.sqs.model.Message;

/**
 * A warm standalone node starts no thread per request: thousands of sends, receives and deletes
 * leave the JVM's count of started threads flat. (The test JVM runs with the common pool's
 * parallelism at 1, as on a 2-core machine, where a callback given no executor gets a new thread.)
 */
class ThreadCountTest {
    @RegisterExtension
    static final BrokerExtension broker = new BrokerExtension();

    @Test
    void trafficStartsNoThreads() {
        String url = broker.createQueue("threads");
        Runnable traffic = () -> {
            for (int i = 0; i < 500; i++) {
                String body = "t" + i;
                broker.sqs().sendMessage(r -> r.queueUrl(url).messageBody(body));
            }
            for (int i = 0; i < 50; i++) {
                for (Message m : broker.sqs()
                        .receiveMessage(r -> r.queueUrl(url).maxNumberOfMessages(10))
                        .messages()) {
                    broker.sqs().deleteMessage(r -> r.queueUrl(url).receiptHandle(m.receiptHandle()));
                }
            }
        };
        StartedThreads.Count count = StartedThreads.during(traffic, traffic, 4);
        assertTrue(count.started() < StartedThreads.FLAT, count + " during 2000 sends");
    }
}
