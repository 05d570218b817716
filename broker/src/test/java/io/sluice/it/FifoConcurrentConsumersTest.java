package io.sluice.it;

import static io.sluice.it.FifoSupport.createFifoQueue;
import static io.sluice.it.FifoSupport.seq;
import static io.sluice.it.SqsAssert.awaitAttribute;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchRequestEntry;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchResponse;

/**
 * Several consumers on one FIFO queue with many message groups. Every delivery is recorded with a
 * global logical clock: the tick taken right after the receive returned, and the tick taken right
 * before the delete was sent. The checks:
 * <ul>
 *   <li>every message is delivered exactly once (the visibility timeout is far longer than the run);</li>
 *   <li>no group is ever delivered out of order;</li>
 *   <li>no group is in flight at two receives at once: a message of group G returned by a receive R
 *       must come after the delete of every message of G returned by an earlier receive had started
 *       ({@code receiveTick(R) > deleteStartTick(m)}). The check has no false positives: the broker
 *       can only have handed out the later message after it processed the delete, which was sent
 *       after its start tick was taken.</li>
 * </ul>
 */
@Timeout(40)
class FifoConcurrentConsumersTest {

    private static final int GROUPS = 20;
    private static final int PER_GROUP = 25;
    private static final int CONSUMERS = 4;
    private static final long RUN_MILLIS = 25_000;

    @RegisterExtension
    static final BrokerExtension broker = new BrokerExtension();

    /** One message as delivered. */
    private static final class Delivery {
        final int consumer;
        final long receiveTick;
        final int position;
        final String group;
        final int index;
        final BigInteger sequence;
        final String messageId;
        volatile long deleteStartTick = Long.MAX_VALUE;

        Delivery(int consumer, long receiveTick, int position, Message m) {
            this.consumer = consumer;
            this.receiveTick = receiveTick;
            this.position = position;
            this.group = m.attributesAsStrings().get("MessageGroupId");
            String[] parts = m.body().split(":");
            this.index = Integer.parseInt(parts[1]);
            this.sequence = seq(m.attributesAsStrings().get("SequenceNumber"));
            this.messageId = m.messageId();
            if (!parts[0].equals(group)) {
                throw new AssertionError("body " + m.body() + " arrived with MessageGroupId " + group);
            }
        }

        @Override
        public String toString() {
            return group + ":" + index + "@c" + consumer + "[recv=" + receiveTick + ",pos=" + position + ",delStart="
                    + deleteStartTick + "]";
        }
    }

    @Test
    void manyGroupsManyConsumersKeepOrderAndExclusivity() throws Exception {
        SqsClient sqs = broker.sqs();
        String url = createFifoQueue(broker, "crowd");

        // Send: three rounds (10, 10, 5 per group), each round one batch per group; entries in order.
        int[] roundSizes = {10, 10, 5};
        int offset = 0;
        for (int size : roundSizes) {
            for (int g = 0; g < GROUPS; g++) {
                String group = "G" + g;
                List<SendMessageBatchRequestEntry> entries = new ArrayList<>();
                for (int i = offset; i < offset + size; i++) {
                    String body = group + ":" + i;
                    entries.add(SendMessageBatchRequestEntry.builder()
                            .id("e" + i)
                            .messageBody(body)
                            .messageGroupId(group)
                            .messageDeduplicationId(body)
                            .build());
                }
                SendMessageBatchResponse resp =
                        sqs.sendMessageBatch(r -> r.queueUrl(url).entries(entries));
                assertTrue(resp.failed().isEmpty(), "failed: " + resp.failed());
            }
            offset += size;
        }
        int total = GROUPS * PER_GROUP;
        awaitAttribute(broker, url, "ApproximateNumberOfMessages", String.valueOf(total));

        AtomicLong clock = new AtomicLong();
        AtomicInteger deleted = new AtomicInteger();
        ConcurrentLinkedQueue<Delivery> deliveries = new ConcurrentLinkedQueue<>();
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(RUN_MILLIS);

        ExecutorService pool = Executors.newFixedThreadPool(CONSUMERS);
        List<Future<?>> futures = new ArrayList<>();
        try {
            for (int c = 0; c < CONSUMERS; c++) {
                int consumer = c;
                int max = 1 + (c * 3) % 10; // 1, 4, 7, 10: different batch sizes
                futures.add(pool.submit(() -> {
                    while (deleted.get() < total && System.nanoTime() < deadline) {
                        List<Message> got = sqs.receiveMessage(r -> r.queueUrl(url)
                                        .maxNumberOfMessages(max)
                                        .waitTimeSeconds(1)
                                        .visibilityTimeout(60)
                                        .messageSystemAttributeNamesWithStrings("All"))
                                .messages();
                        long receiveTick = clock.incrementAndGet();
                        List<Delivery> batch = new ArrayList<>();
                        for (int p = 0; p < got.size(); p++) {
                            Delivery d = new Delivery(consumer, receiveTick, p, got.get(p));
                            batch.add(d);
                            deliveries.add(d);
                        }
                        for (int p = 0; p < got.size(); p++) {
                            Message m = got.get(p);
                            batch.get(p).deleteStartTick = clock.incrementAndGet();
                            sqs.deleteMessage(r -> r.queueUrl(url).receiptHandle(m.receiptHandle()));
                            deleted.incrementAndGet();
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : futures) {
                f.get(RUN_MILLIS + 10_000, TimeUnit.MILLISECONDS);
            }
        } finally {
            pool.shutdownNow();
        }

        List<Delivery> all = new ArrayList<>(deliveries);
        Map<String, List<Delivery>> byGroup = new HashMap<>();
        for (Delivery d : all) {
            byGroup.computeIfAbsent(d.group, k -> new ArrayList<>()).add(d);
        }
        Map<Integer, Integer> perConsumer = new HashMap<>();
        all.forEach(d -> perConsumer.merge(d.consumer, 1, Integer::sum));

        // Every message delivered, exactly once.
        assertEquals(GROUPS, byGroup.size(), "groups delivered: " + byGroup.keySet());
        for (Map.Entry<String, List<Delivery>> e : byGroup.entrySet()) {
            List<Delivery> ds = e.getValue();
            ds.sort(Comparator.<Delivery>comparingLong(d -> d.receiveTick).thenComparingInt(d -> d.position));
            List<Integer> indexes = ds.stream().map(d -> d.index).toList();
            List<Integer> expected = IntStream.range(0, PER_GROUP).boxed().toList();
            assertEquals(
                    expected, indexes, "group " + e.getKey() + " delivered out of order, incompletely or twice: " + ds);
            for (int i = 1; i < ds.size(); i++) {
                assertTrue(
                        ds.get(i).sequence.compareTo(ds.get(i - 1).sequence) > 0,
                        "SequenceNumber must increase within group " + e.getKey() + ": " + ds);
            }
            // Exclusivity: a later receive of G must follow the delete starts of all earlier deliveries of G.
            for (int j = 0; j < ds.size(); j++) {
                Delivery later = ds.get(j);
                for (int i = 0; i < j; i++) {
                    Delivery earlier = ds.get(i);
                    if (earlier.receiveTick != later.receiveTick && later.receiveTick < earlier.deleteStartTick) {
                        fail("group " + e.getKey() + " was in flight at two receives at once: " + later
                                + " was received before the delete of " + earlier + " was even sent");
                    }
                }
            }
        }
        assertEquals(total, all.size(), "deliveries (per consumer " + perConsumer + ")");
        assertEquals(total, deleted.get());
        awaitAttribute(broker, url, "ApproximateNumberOfMessages", "0");
        awaitAttribute(broker, url, "ApproximateNumberOfMessagesNotVisible", "0");
    }
}
