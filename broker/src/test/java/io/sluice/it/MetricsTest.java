package io.sluice.it;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.services.sqs.model.Message;

/** /metrics after real traffic: the numbers, not only the names. */
class MetricsTest {
    @RegisterExtension
    static final BrokerExtension broker = new BrokerExtension("--vertx-metrics", "true");

    private static Map<String, Double> scrape() {
        return broker.metrics();
    }

    private static double value(Map<String, Double> samples, String name, String queue) {
        String key = name + "{queue=\"" + queue + "\"}";
        Double v = samples.get(key);
        assertTrue(
                v != null,
                key + " not scraped; have "
                        + samples.keySet().stream()
                                .filter(k -> k.contains(queue))
                                .toList());
        return v;
    }

    @Test
    void queueAndNodeMetricsCountRealTraffic() {
        String url = broker.createQueue("metrics");
        String queue = BrokerExtension.nameOf(url);
        String idle = BrokerExtension.nameOf(broker.createQueue("metrics-idle"));
        String idleUrl = broker.expectedQueueUrl(idle);
        List<String> bodies = List.of("a", "bb", "ccc", "dddd", "eeeee");
        long beforeSends = System.nanoTime();
        for (String b : bodies) {
            broker.sqs().sendMessage(r -> r.queueUrl(url).messageBody(b));
        }
        List<Message> got = broker.sqs()
                .receiveMessage(r -> r.queueUrl(url).maxNumberOfMessages(3))
                .messages();
        assertEquals(3, got.size());
        double sendToReceiveSeconds = (System.nanoTime() - beforeSends) / 1e9;
        for (Message m : got) {
            broker.sqs().deleteMessage(r -> r.queueUrl(url).receiptHandle(m.receiptHandle()));
        }
        broker.sqs().receiveMessage(r -> r.queueUrl(idleUrl));

        Map<String, Double> s = scrape();
        assertEquals(5.0, value(s, "sqs_NumberOfMessagesSent_total", queue));
        assertEquals(5.0, value(s, "sqs_SentMessageSize_bytes_count", queue));
        assertEquals(15.0, value(s, "sqs_SentMessageSize_bytes_sum", queue));
        assertEquals(3.0, value(s, "sqs_NumberOfMessagesReceived_total", queue));
        assertEquals(3.0, value(s, "sqs_NumberOfMessagesDeleted_total", queue));
        assertEquals(1.0, value(s, "sqs_NumberOfEmptyReceives_total", idle));
        assertEquals(2.0, value(s, "sqs_ApproximateNumberOfMessagesVisible", queue));
        assertEquals(0.0, value(s, "sqs_ApproximateNumberOfMessagesNotVisible", queue));
        assertEquals(0.0, value(s, "sqs_ApproximateNumberOfMessagesDelayed", queue));
        assertEquals(0.0, value(s, "sqs_ApproximateNumberOfMessagesVisible", idle));
        assertTrue(value(s, "sqs_ApproximateAgeOfOldestMessage_seconds", queue) >= 0);

        assertEquals(5.0, s.get("sluice_http_requests_seconds_count{action=\"SendMessage\",status=\"200\"}"));
        assertEquals(3.0, s.get("sluice_http_requests_seconds_count{action=\"DeleteMessage\",status=\"200\"}"));
        // The three first deliveries (the node's count: no other queue of this test delivered anything),
        // none of which can have waited longer than the sends and the receive took (+1 ms: the server
        // clock's millisecond resolution).
        assertEquals(3.0, s.get("sluice_messages_first_receive_wait_seconds_count"));
        assertTrue(s.get("sluice_messages_first_receive_wait_seconds_sum") <= 3 * (sendToReceiveSeconds + 0.001));
        // Partitions start on first use, and the reconciler starts the rest within a second.
        await("both queues' partitions running")
                .atMost(Duration.ofSeconds(10))
                .until(() -> scrape().get("sluice_partitions_owned") >= 8);
        assertTrue(scrape().get("sluice_partitions_rebuilt_total") >= 8);
        assertEquals(0.0, s.get("sluice_long_polls_parked"));
        assertEquals(0.0, s.get("sluice_requests_forwarded_total"), "a standalone node forwards nothing");
        assertTrue(
                s.keySet().stream().anyMatch(k -> k.startsWith("vertx_http_server_requests_total")),
                "with --vertx-metrics, Vert.x's own HTTP metrics share the registry");

        // An error is counted under its status; a deleted queue's series go away.
        broker.sqs().deleteQueue(r -> r.queueUrl(idleUrl));
        try {
            broker.sqs().getQueueUrl(r -> r.queueName("metrics-no-such-queue"));
        } catch (RuntimeException expected) {
            // QueueDoesNotExist, 400
        }
        Map<String, Double> after = scrape();
        assertEquals(1.0, after.get("sluice_http_requests_seconds_count{action=\"GetQueueUrl\",status=\"400\"}"));
        assertTrue(
                after.keySet().stream()
                        .noneMatch(k -> k.startsWith("sqs_NumberOfEmptyReceives_total{queue=\"" + idle + "\"")),
                "the deleted queue's counters are removed");
    }
}
