package io.sluice.it;

import static io.sluice.it.SqsAssert.receive;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.json.JsonObject;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.ReceiveMessageRequest;

/** Long polling: wakes on send / delay end / visibility expiry, waits the full time when empty. */
@Timeout(40)
class LongPollTest {

    @RegisterExtension
    static final BrokerExtension broker = new BrokerExtension();

    private static final ExecutorService pool = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "long-poll-test");
        t.setDaemon(true);
        return t;
    });

    @AfterAll
    static void stopPool() {
        pool.shutdownNow();
    }

    private SqsClient sqs() {
        return broker.sqs();
    }

    private CompletableFuture<List<Message>> receiveAsync(Consumer<ReceiveMessageRequest.Builder> request) {
        return CompletableFuture.supplyAsync(() -> sqs().receiveMessage(request).messages(), pool);
    }

    /**
     * Waits until the node has {@code count} receives parked (its gauge of parked long polls),
     * and asserts that none of {@code receives} has answered: they reached the node and wait there.
     */
    private static void awaitParked(int count, CompletableFuture<?>... receives) {
        await("receives parked on the node")
                .atMost(Duration.ofSeconds(5))
                .pollInterval(Duration.ofMillis(20))
                .until(() -> broker.metrics().get("sluice_long_polls_parked") == count);
        for (CompletableFuture<?> f : receives) {
            assertFalse(f.isDone(), "a parked receive answered before anything was sent");
        }
    }

    private static long msSince(long nanoStart) {
        return (System.nanoTime() - nanoStart) / 1_000_000;
    }

    @Test
    void parkedReceiveReturnsAsSoonAsAMessageIsSent() throws Exception {
        String url = broker.createQueue("wake");
        long start = System.nanoTime();
        CompletableFuture<List<Message>> f =
                receiveAsync(r -> r.queueUrl(url).waitTimeSeconds(10).maxNumberOfMessages(10));
        awaitParked(1, f);

        long sentAt = System.nanoTime();
        sqs().sendMessage(r -> r.queueUrl(url).messageBody("wake up"));
        List<Message> got = f.get(5, TimeUnit.SECONDS);
        long total = msSince(start);
        assertEquals(1, got.size());
        assertEquals("wake up", got.get(0).body());
        assertTrue(
                total < 3000,
                "long poll of 10 s answered " + total + " ms after it started (should be right after the send)");
        assertTrue(msSince(sentAt) < 2000, "answer came " + msSince(sentAt) + " ms after the send");
    }

    @Test
    void emptyLongPollWaitsTheRequestedTime() {
        String url = broker.createQueue("empty");
        long start = System.nanoTime();
        List<Message> got =
                sqs().receiveMessage(r -> r.queueUrl(url).waitTimeSeconds(2)).messages();
        long took = msSince(start);
        assertTrue(got.isEmpty());
        assertTrue(took >= 1900, "empty long poll of 2 s returned after " + took + " ms");
        assertTrue(took < 5000, "empty long poll of 2 s took " + took + " ms");
    }

    @Test
    void queueReceiveWaitTimeIsTheDefaultAndZeroOverridesIt() {
        String url = broker.createQueue("qwait", Map.of("ReceiveMessageWaitTimeSeconds", "2"));
        long start = System.nanoTime();
        assertTrue(sqs().receiveMessage(r -> r.queueUrl(url)).messages().isEmpty());
        long took = msSince(start);
        assertTrue(
                took >= 1900,
                "queue ReceiveMessageWaitTimeSeconds=2 should make the receive wait, took " + took + " ms");

        long start2 = System.nanoTime();
        assertTrue(sqs().receiveMessage(r -> r.queueUrl(url).waitTimeSeconds(0))
                .messages()
                .isEmpty());
        long took2 = msSince(start2);
        assertTrue(took2 < 1000, "WaitTimeSeconds=0 must answer at once, took " + took2 + " ms");
    }

    @Test
    void longPollReturnsExistingMessagesImmediately() {
        String url = broker.createQueue("ready");
        for (int i = 0; i < 5; i++) {
            sqs().sendMessage(r -> r.queueUrl(url).messageBody("m"));
        }
        long start = System.nanoTime();
        List<Message> got = sqs().receiveMessage(
                        r -> r.queueUrl(url).waitTimeSeconds(10).maxNumberOfMessages(3))
                .messages();
        assertTrue(msSince(start) < 2000, "messages were available, yet the long poll took " + msSince(start) + " ms");
        assertTrue(got.size() >= 1 && got.size() <= 3, "between 1 and MaxNumberOfMessages=3, got " + got.size());
    }

    @Test
    void parkedReceiveWakesWhenDelayEnds() throws Exception {
        String url = broker.createQueue("delaywake");
        sqs().sendMessage(r -> r.queueUrl(url).messageBody("delayed").delaySeconds(1));
        long start = System.nanoTime();
        List<Message> got =
                sqs().receiveMessage(r -> r.queueUrl(url).waitTimeSeconds(10)).messages();
        long took = msSince(start);
        assertEquals(1, got.size());
        assertTrue(took < 3500, "delay of 1 s ended but the parked receive answered after " + took + " ms");
    }

    @Test
    void parkedReceiveWakesWhenVisibilityExpires() {
        String url = broker.createQueue("viswake");
        sqs().sendMessage(r -> r.queueUrl(url).messageBody("x"));
        Message first =
                receive(sqs(), r -> r.queueUrl(url).visibilityTimeout(1)).get(0);
        long start = System.nanoTime();
        List<Message> got =
                sqs().receiveMessage(r -> r.queueUrl(url).waitTimeSeconds(10)).messages();
        long took = msSince(start);
        assertEquals(1, got.size());
        assertEquals(first.messageId(), got.get(0).messageId());
        assertTrue(took < 3500, "visibility of 1 s expired but the parked receive answered after " + took + " ms");
    }

    @Test
    void oneMessageWakesOnlyOneOfTwoParkedReceives() throws Exception {
        String url = broker.createQueue("two");
        CompletableFuture<List<Message>> a =
                receiveAsync(r -> r.queueUrl(url).waitTimeSeconds(3).maxNumberOfMessages(10));
        CompletableFuture<List<Message>> b =
                receiveAsync(r -> r.queueUrl(url).waitTimeSeconds(3).maxNumberOfMessages(10));
        awaitParked(2, a, b);
        sqs().sendMessage(r -> r.queueUrl(url).messageBody("only one"));
        int total =
                a.get(8, TimeUnit.SECONDS).size() + b.get(8, TimeUnit.SECONDS).size();
        assertEquals(1, total, "exactly one receiver gets the message");
        assertEquals("1", broker.attribute(url, "ApproximateNumberOfMessagesNotVisible"));
    }

    @Test
    void longPollNeverReturnsMoreThanMaxNumberOfMessages() throws Exception {
        String url = broker.createQueue("max");
        CompletableFuture<List<Message>> f =
                receiveAsync(r -> r.queueUrl(url).waitTimeSeconds(5).maxNumberOfMessages(2));
        awaitParked(1, f);
        sqs().sendMessageBatch(r -> r.queueUrl(url)
                .entries(
                        e -> e.id("a").messageBody("a"),
                        e -> e.id("b").messageBody("b"),
                        e -> e.id("c").messageBody("c"),
                        e -> e.id("d").messageBody("d"),
                        e -> e.id("e").messageBody("e")));
        List<Message> got = f.get(8, TimeUnit.SECONDS);
        assertTrue(got.size() >= 1 && got.size() <= 2, "got " + got.size());
        // Whatever the parked receive did not take is still there.
        await().atMost(Duration.ofSeconds(3))
                .until(() -> Integer.parseInt(broker.attribute(url, "ApproximateNumberOfMessages")) == 5 - got.size());
    }

    @Test
    void abandonedLongPollDoesNotSwallowMessages() throws Exception {
        String url = broker.createQueue("abandon");
        String body = new JsonObject()
                .put("QueueUrl", url)
                .put("WaitTimeSeconds", 10)
                .put("VisibilityTimeout", 1)
                .put("MaxNumberOfMessages", 10)
                .encode();
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        try (Socket socket = new Socket("127.0.0.1", broker.port())) {
            String head = "POST / HTTP/1.1\r\nHost: 127.0.0.1:" + broker.port() + "\r\n"
                    + "Content-Type: application/x-amz-json-1.0\r\nX-Amz-Target: AmazonSQS.ReceiveMessage\r\n"
                    + "Content-Length: " + bytes.length + "\r\n\r\n";
            socket.getOutputStream().write(head.getBytes(StandardCharsets.US_ASCII));
            socket.getOutputStream().write(bytes);
            socket.getOutputStream().flush();
            // The receive must be parked: no answer for 500 ms.
            socket.setSoTimeout(500);
            try {
                int b = socket.getInputStream().read();
                throw new AssertionError("long poll on an empty queue answered at once (read " + b + ")");
            } catch (SocketTimeoutException expected) {
                // parked
            }
        } // client goes away

        sqs().sendMessage(r -> r.queueUrl(url).messageBody("not for the dead poll"));
        // Either the broker noticed the closed connection, or the message went in flight for 1 s:
        // in both cases it must be receivable again shortly.
        Message m = SqsAssert.awaitMessage(sqs(), url, Duration.ofSeconds(4));
        assertEquals("not for the dead poll", m.body());
    }
}
