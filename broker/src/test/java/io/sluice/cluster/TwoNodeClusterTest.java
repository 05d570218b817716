package io.sluice.cluster;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.map.IMap;
import com.hazelcast.map.listener.EntryAddedListener;
import com.hazelcast.spi.properties.ClusterProperty;
import io.sluice.cluster.store.PartitionStore;
import io.sluice.config.BrokerConfig;
import io.sluice.config.ConfigLoader;
import io.sluice.it.BrokerExtension;
import io.sluice.it.StartedThreads;
import io.sluice.queue.FifoRules;
import io.sluice.queue.PartitionKey;
import io.sluice.server.SluiceNode;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.DeleteMessageBatchRequestEntry;
import software.amazon.awssdk.services.sqs.model.DeleteMessageBatchResponse;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchRequestEntry;

/**
 * Two real nodes (two Hazelcast members, clustered Vert.x) in this JVM: every call works through
 * either node, requests for partitions owned by the other node are forwarded, and a long poll
 * parked on one node wakes for a send through the other.
 */
class TwoNodeClusterTest {
    private static String clusterName;
    private static SluiceNode a;
    private static SluiceNode b;
    private static SqsClient viaA;
    private static SqsClient viaB;

    @BeforeAll
    static void start() throws Exception {
        // The project's local configuration under a cluster name of its own, so nothing else joins.
        clusterName = IsolatedClusterConfig.newClusterName();
        Path config = IsolatedClusterConfig.write(clusterName);
        BrokerConfig base = ConfigLoader.load(
                List.of(
                        "--port",
                        "0",
                        "--partitions",
                        "8",
                        "--short-poll-sampling",
                        "false",
                        "--cluster-config",
                        config.toString()),
                Map.of());
        a = SluiceNode.start(base);
        b = SluiceNode.start(base);
        viaA = client(a);
        viaB = client(b);
    }

    /**
     * Whether a node of this cluster listens for wakes of the queue: the Vert.x cluster manager
     * registers every event-bus consumer in this Hazelcast multimap, which any member can read.
     */
    private static boolean listeningForWakes(String queue) {
        HazelcastInstance member = Hazelcast.getAllHazelcastInstances().stream()
                .filter(hz -> hz.getConfig().getClusterName().equals(clusterName))
                .findFirst()
                .orElseThrow();
        return member.getMultiMap(HazelcastSetup.VERTX_SUBSCRIPTIONS_MAP).containsKey(WakeRelay.ADDRESS_PREFIX + queue);
    }

    private static SqsClient client(SluiceNode node) {
        return SqsClient.builder()
                .endpointOverride(URI.create(node.baseUrl()))
                .region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("x", "x")))
                .httpClient(UrlConnectionHttpClient.create())
                .build();
    }

    @AfterAll
    static void stop() {
        viaA.close();
        viaB.close();
        b.close();
        a.close();
    }

    @Test
    void queuesAndMessagesAreSharedByBothNodes() {
        String url = viaA.createQueue(r -> r.queueName("shared")).queueUrl();
        assertEquals(
                url.replace(a.baseUrl(), b.baseUrl()),
                viaB.getQueueUrl(r -> r.queueName("shared")).queueUrl());
        Set<String> sent = new HashSet<>();
        for (int i = 0; i < 40; i++) {
            SqsClient via = i % 2 == 0 ? viaA : viaB;
            String body = "m" + i;
            via.sendMessage(r -> r.queueUrl(url).messageBody(body));
            sent.add(body);
        }
        Set<String> received = new HashSet<>();
        await().atMost(Duration.ofSeconds(20)).until(() -> {
            for (SqsClient via : List.of(viaA, viaB)) {
                for (Message m : via.receiveMessage(r -> r.queueUrl(url).maxNumberOfMessages(10))
                        .messages()) {
                    received.add(m.body());
                    // Deleted through the other node: the receipt handle works anywhere.
                    (via == viaA ? viaB : viaA)
                            .deleteMessage(r -> r.queueUrl(url).receiptHandle(m.receiptHandle()));
                }
            }
            return received.size() == sent.size();
        });
        assertEquals(sent, received);
        await().atMost(Duration.ofSeconds(5))
                .until(() -> "0"
                        .equals(viaB.getQueueAttributes(r -> r.queueUrl(url).attributeNamesWithStrings("All"))
                                .attributesAsStrings()
                                .get("ApproximateNumberOfMessagesNotVisible")));
    }

    /**
     * Batches through either node: sent through A (stored in A's partitions), received and deleted in
     * batches through B, so B forwards each partition's deletes to A as one request: fewer requests
     * forwarded while deleting than messages deleted (one per entry before; a receive of 10 from 8
     * partitions holds two of one partition at least). Should A own none of the 8 partitions (one
     * start in 256), nothing is forwarded and the count says nothing.
     */
    @Test
    void batchesSentThroughOneNodeAreDeletedThroughTheOther() {
        String url = viaA.createQueue(r -> r.queueName("batches")).queueUrl();
        Set<String> sent = new HashSet<>();
        for (int batch = 0; batch < 5; batch++) {
            List<SendMessageBatchRequestEntry> entries = new ArrayList<>();
            for (int i = 0; i < 10; i++) {
                String body = "b" + batch + "-" + i;
                entries.add(SendMessageBatchRequestEntry.builder()
                        .id("e" + i)
                        .messageBody(body)
                        .build());
                sent.add(body);
            }
            assertTrue(viaA.sendMessageBatch(r -> r.queueUrl(url).entries(entries))
                    .failed()
                    .isEmpty());
        }
        double[] forwardedDeletes = {0};
        Set<String> received = new HashSet<>();
        await().atMost(Duration.ofSeconds(20)).until(() -> {
            List<Message> got = viaB.receiveMessage(r -> r.queueUrl(url).maxNumberOfMessages(10))
                    .messages();
            if (!got.isEmpty()) {
                List<DeleteMessageBatchRequestEntry> deletes = new ArrayList<>();
                for (int i = 0; i < got.size(); i++) {
                    received.add(got.get(i).body());
                    deletes.add(DeleteMessageBatchRequestEntry.builder()
                            .id("d" + i)
                            .receiptHandle(got.get(i).receiptHandle())
                            .build());
                }
                double before = forwarded(b);
                DeleteMessageBatchResponse deleted =
                        viaB.deleteMessageBatch(r -> r.queueUrl(url).entries(deletes));
                forwardedDeletes[0] += forwarded(b) - before;
                assertTrue(deleted.failed().isEmpty(), "failed: " + deleted.failed());
                assertEquals(got.size(), deleted.successful().size());
            }
            return received.size() == sent.size();
        });
        assertEquals(sent, received);
        assertTrue(
                forwardedDeletes[0] < sent.size(),
                forwardedDeletes[0] + " requests forwarded to delete " + sent.size() + " messages");
        await().atMost(Duration.ofSeconds(5))
                .until(() -> viaA
                        .getQueueAttributes(r -> r.queueUrl(url).attributeNamesWithStrings("All"))
                        .attributesAsStrings()
                        .entrySet()
                        .stream()
                        .filter(e -> e.getKey().startsWith("ApproximateNumberOfMessages"))
                        .allMatch(e -> e.getValue().equals("0")));
    }

    /**
     * A standard message is stored in a partition of the node that took it: none of these sends
     * is forwarded (unless that node owns none of the queue's 8 partitions, when all are), while
     * every message can be received through the other node.
     */
    @Test
    void standardSendsAreStoredWhereTheyArrive() {
        String url = viaA.createQueue(r -> r.queueName("arrive")).queueUrl();
        double before = forwarded(a);
        Set<String> sent = new HashSet<>();
        for (int i = 0; i < 50; i++) {
            String body = "s" + i;
            viaA.sendMessage(r -> r.queueUrl(url).messageBody(body));
            sent.add(body);
        }
        double forwardedSends = forwarded(a) - before;
        assertTrue(forwardedSends == 0 || forwardedSends == 50, forwardedSends + " of 50 sends forwarded");
        Set<String> received = new HashSet<>();
        await().atMost(Duration.ofSeconds(20)).until(() -> {
            for (Message m : viaB.receiveMessage(r -> r.queueUrl(url).maxNumberOfMessages(10))
                    .messages()) {
                received.add(m.body());
                viaB.deleteMessage(r -> r.queueUrl(url).receiptHandle(m.receiptHandle()));
            }
            return received.size() == sent.size();
        });
        assertEquals(sent, received);
    }

    /**
     * A receive asks the partitions its node runs first: messages sent through A (stored in A's
     * partitions) are received through A without a request to B, though B's partitions hold
     * messages too (fewer: a far bigger backlog on B would be drained first instead).
     */
    @Test
    void receivesAskThePartitionsOfTheirNodeFirst() {
        String queue = IntStream.range(0, 100)
                .mapToObj(i -> "near-" + i)
                .filter(name -> ownsSome(member(a), name) && ownsSome(member(b), name))
                .findFirst()
                .orElseThrow();
        String url = viaA.createQueue(r -> r.queueName(queue)).queueUrl();
        String urlViaB = url.replace(a.baseUrl(), b.baseUrl());
        for (int i = 0; i < 20; i++) {
            String body = "a" + i;
            viaA.sendMessage(r -> r.queueUrl(url).messageBody(body));
        }
        for (int i = 0; i < 4; i++) {
            String body = "b" + i;
            viaB.sendMessage(r -> r.queueUrl(urlViaB).messageBody(body));
        }
        double before = forwarded(a);
        Set<String> received = new HashSet<>();
        for (int i = 0; i < 2; i++) {
            viaA.receiveMessage(r -> r.queueUrl(url).maxNumberOfMessages(10)).messages().stream()
                    .map(Message::body)
                    .forEach(received::add);
        }
        assertEquals(0, forwarded(a) - before, "requests A forwarded to B");
        assertEquals(20, received.size(), "received: " + received);
        assertTrue(received.stream().allMatch(body -> body.startsWith("a")), "received: " + received);
    }

    /** Whether the member owns at least one of the queue's 8 partitions. */
    private static boolean ownsSome(HazelcastInstance member, String queue) {
        return IntStream.range(0, 8).anyMatch(p -> owns(member, queue, p));
    }

    /** Whether the member owns the queue partition (placed by its key, as the broker places it). */
    private static boolean owns(HazelcastInstance member, String queue, int partition) {
        return member.getPartitionService()
                .getPartition(new PartitionKey(queue, partition).toString())
                .getOwner()
                .localMember();
    }

    /** The body of the first message a long poll through the client gets. */
    private static String firstBody(SqsClient via, String url) {
        return via.receiveMessage(r -> r.queueUrl(url).waitTimeSeconds(5))
                .messages()
                .get(0)
                .body();
    }

    private static double forwarded(SluiceNode node) {
        return BrokerExtension.metrics(node.baseUrl()).get("sluice_requests_forwarded_total");
    }

    /**
     * No callback runs on a thread started for it: on 2 cores Hazelcast runs callbacks given no
     * executor on a new thread each (the test JVM runs with the common pool's parallelism at 1,
     * as on such a machine). Sends through both nodes (the FIFO ones to groups in both nodes'
     * partitions, so about half of those forwarded) start no threads once the nodes are warm.
     */
    @Test
    void sendsAndReceivesStartNoThreads() {
        String url = viaA.createQueue(r -> r.queueName("threads")).queueUrl();
        String fifo = viaA.createQueue(r -> r.queueName("threads.fifo")
                        .attributesWithStrings(Map.of("FifoQueue", "true", "ContentBasedDeduplication", "true")))
                .queueUrl();
        Runnable traffic = () -> {
            for (int i = 0; i < 500; i++) {
                String body = "t" + i + "-" + System.nanoTime();
                SqsClient via = i % 2 == 0 ? viaA : viaB;
                if (i % 4 < 2) {
                    via.sendMessage(r -> r.queueUrl(url).messageBody(body));
                } else {
                    via.sendMessage(r -> r.queueUrl(fifo).messageBody(body).messageGroupId("g" + body.hashCode() % 16));
                }
            }
            for (SqsClient via : List.of(viaA, viaB)) {
                for (Message m : via.receiveMessage(r -> r.queueUrl(url).maxNumberOfMessages(10))
                        .messages()) {
                    via.deleteMessage(r -> r.queueUrl(url).receiptHandle(m.receiptHandle()));
                }
            }
        };
        StartedThreads.Count count = StartedThreads.during(traffic, traffic, 4);
        assertTrue(count.started() < StartedThreads.FLAT, count + " during 2000 sends");
    }

    @Test
    void longPollOnOneNodeWakesForASendThroughTheOther() throws Exception {
        for (int round = 0; round < 3; round++) {
            // A queue of its own each round: a node listens for a queue's wakes from the first receive parked on it on.
            String queue = "wake-" + round;
            String url = viaA.createQueue(r -> r.queueName(queue)).queueUrl();
            long start = System.nanoTime();
            CompletableFuture<List<Message>> parked = CompletableFuture.supplyAsync(
                    () -> viaA.receiveMessage(r -> r.queueUrl(url).waitTimeSeconds(10))
                            .messages());
            // The receive must be parked on A when the send goes out through B: parking makes A listen for
            // the queue's wakes, which registers A's consumer in the cluster for B's wake to reach.
            await("receive parked on A").atMost(Duration.ofSeconds(5)).until(() -> listeningForWakes(queue));
            assertFalse(parked.isDone(), "the receive should be parked, not answered");
            String body = "wake-" + round;
            long sentAt = System.nanoTime();
            viaB.sendMessage(r -> r.queueUrl(url).messageBody(body));
            List<Message> got = parked.get();
            long afterSendMillis = (System.nanoTime() - sentAt) / 1_000_000;
            assertEquals(1, got.size());
            assertEquals(body, got.get(0).body());
            assertTrue(afterSendMillis < 1500, "woke " + afterSendMillis + " ms after the send");
            assertTrue((System.nanoTime() - start) / 1_000_000 < 5_000);
            viaB.deleteMessage(r -> r.queueUrl(url).receiptHandle(got.get(0).receiptHandle()));
        }
    }

    /**
     * A client behind a load balancer creates a queue through one node and goes on through the
     * other at once. The registry's news travels as a map event; here node A's event threads are held
     * up, so A has not heard of the queue B created: A's SendMessage must wait for the news (and not
     * answer QueueDoesNotExist), then succeed once the events flow again.
     */
    @Test
    void aQueueCreatedThroughOneNodeIsUsableAtOnceThroughTheOther() throws Exception {
        try (NewsHold held = NewsHold.of(member(a))) {
            String url = viaB.createQueue(r -> r.queueName("fresh")).queueUrl();
            String urlViaA = url.replace(b.baseUrl(), a.baseUrl());
            String sent = held.callWaitsForTheNews(
                    "A waits for the news instead of failing",
                    () -> viaA.sendMessage(r -> r.queueUrl(urlViaA).messageBody("first"))
                            .messageId());
            assertFalse(sent.isEmpty());
            assertEquals("first", firstBody(viaA, urlViaA));
        }
    }

    /**
     * A RedrivePolicy names its dead-letter queue by ARN: a queue created through the other node a
     * moment ago is waited for too, not refused as "Dead letter target does not exist".
     */
    @Test
    void aDeadLetterQueueCreatedThroughOneNodeCanBeNamedAtOnceThroughTheOther() throws Exception {
        try (NewsHold held = NewsHold.of(member(a))) {
            String dlqUrl = viaB.createQueue(r -> r.queueName("fresh-dlq")).queueUrl();
            String dlqArn = viaB.getQueueAttributes(r -> r.queueUrl(dlqUrl).attributeNamesWithStrings("QueueArn"))
                    .attributesAsStrings()
                    .get("QueueArn");
            String policy = "{\"deadLetterTargetArn\":\"" + dlqArn + "\",\"maxReceiveCount\":\"3\"}";
            String sourceUrl = held.callWaitsForTheNews(
                    "A waits for the news of the dead-letter queue instead of refusing the policy",
                    () -> viaA.createQueue(r ->
                                    r.queueName("fresh-source").attributesWithStrings(Map.of("RedrivePolicy", policy)))
                            .queueUrl());
            assertTrue(viaB.getQueueAttributes(r -> r.queueUrl(sourceUrl).attributeNamesWithStrings("RedrivePolicy"))
                    .attributesAsStrings()
                    .get("RedrivePolicy")
                    .contains(dlqArn));
        }
    }

    /**
     * A node that knows a queue forwards a request to the owner of the partition it needs, which may
     * not have heard of the queue yet: the owner waits for the news instead of answering
     * QueueDoesNotExist. Here B's news is held while the queue is created through A, and a FIFO
     * message goes to a group whose partition B owns.
     */
    @Test
    void theOwnerOfAPartitionWaitsForTheNewsOfAQueueItHasNotHeardOf() throws Exception {
        HazelcastInstance memberB = member(b);
        String queue = "fresh-forwarded.fifo";
        int partitionOfB = IntStream.range(0, 8)
                .filter(p -> owns(memberB, queue, p))
                .findFirst()
                .orElseThrow(() -> new AssertionError("the test needs a queue name of which B owns a partition"));
        String group = IntStream.range(0, 1000)
                .mapToObj(i -> "g" + i)
                .filter(g -> FifoRules.partitionOf(g, 8) == partitionOfB)
                .findFirst()
                .orElseThrow();
        try (NewsHold held = NewsHold.of(memberB)) {
            String url = viaA.createQueue(r -> r.queueName(queue)
                            .attributesWithStrings(Map.of("FifoQueue", "true", "ContentBasedDeduplication", "true")))
                    .queueUrl();
            String sent = held.callWaitsForTheNews(
                    "B waits for the news instead of failing",
                    () -> viaA.sendMessage(
                                    r -> r.queueUrl(url).messageGroupId(group).messageBody("forwarded"))
                            .messageId());
            assertFalse(sent.isEmpty());
            assertEquals("forwarded", firstBody(viaB, url));
        }
    }

    /**
     * A send that reaches a partition between DeleteQueue's purge and its owner's news of the
     * deletion leaves nothing behind: the owner erases the partition's records, primary and backup,
     * once it hears the news, so a queue created later under the name cannot find the message. Here
     * B's news is held while A deletes the queue, and the send goes through B to B's partition.
     */
    @Test
    void aSendThatRacesDeleteQueueLeavesNoRecordInAnyReplica() throws Exception {
        HazelcastInstance memberA = member(a);
        HazelcastInstance memberB = member(b);
        String queue = IntStream.range(0, 100)
                .mapToObj(i -> "erased-" + i)
                .filter(name -> ownsSome(memberB, name))
                .findFirst()
                .orElseThrow();
        String url = viaA.createQueue(r -> r.queueName(queue)).queueUrl();
        String urlViaB = url.replace(a.baseUrl(), b.baseUrl());
        viaB.sendMessage(r -> r.queueUrl(urlViaB).messageBody("before"));
        try (NewsHold held = NewsHold.of(memberB)) {
            viaA.deleteQueue(r -> r.queueUrl(url));
            // B has not heard of the deletion: it takes the send and stores it in its own partition.
            assertFalse(viaB.sendMessage(r -> r.queueUrl(urlViaB).messageBody("racing"))
                    .messageId()
                    .isEmpty());
            assertTrue(storedAnywhere(memberA, memberB, queue), "the racing send is stored before B hears the news");
        }
        await("the deleted queue's records erased from every replica")
                .atMost(Duration.ofSeconds(10))
                .until(() -> !storedAnywhere(memberA, memberB, queue));
    }

    /** Whether any replica of any of the queue's 8 partitions, on either member, holds a message. */
    private static boolean storedAnywhere(HazelcastInstance x, HazelcastInstance y, String queue) {
        for (int p = 0; p < 8; p++) {
            PartitionKey key = new PartitionKey(queue, p);
            for (HazelcastInstance member : List.of(x, y)) {
                for (int replica = 0; replica <= 1; replica++) {
                    if (!PartitionStore.of(member)
                            .readReplica(key, replica)
                            .toCompletableFuture()
                            .join()
                            .messages()
                            .isEmpty()) {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    /** The Hazelcast member of a node of this cluster: A started first, so it is the oldest. */
    private static HazelcastInstance member(SluiceNode node) {
        boolean oldest = node == a;
        return Hazelcast.getAllHazelcastInstances().stream()
                .filter(hz -> hz.getConfig().getClusterName().equals(clusterName))
                .filter(hz -> hz.getCluster().getMembers().iterator().next().localMember() == oldest)
                .findFirst()
                .orElseThrow();
    }

    /**
     * Holds up every event thread of a member, so that it does not hear of a queue created until
     * released: a listener on a test map blocks each thread its events are striped over.
     */
    private static final class NewsHold implements AutoCloseable {
        private final CountDownLatch release = new CountDownLatch(1);
        private final IMap<String, String> hold;
        private final UUID listener;

        private NewsHold(HazelcastInstance member) {
            String threads = member.getConfig().getProperty(ClusterProperty.EVENT_THREAD_COUNT.getName());
            int eventThreads =
                    Integer.parseInt(threads != null ? threads : ClusterProperty.EVENT_THREAD_COUNT.getDefaultValue());
            Set<Thread> held = ConcurrentHashMap.newKeySet();
            hold = member.getMap("test-hold-events-" + UUID.randomUUID());
            listener = hold.addLocalEntryListener((EntryAddedListener<String, String>) e -> {
                held.add(Thread.currentThread());
                try {
                    release.await(30, TimeUnit.SECONDS);
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                }
            });
            for (int i = 0; i < 64; i++) { // events are striped over the threads by key
                hold.put("k" + i, "v");
            }
            await("every event thread held").atMost(Duration.ofSeconds(10)).until(() -> held.size() >= eventThreads);
        }

        static NewsHold of(HazelcastInstance member) {
            return new NewsHold(member);
        }

        void release() {
            release.countDown();
        }

        /**
         * Makes the call (from another thread) while the news is held, checks that it waits for the
         * news instead of answering (for half a second), then lets the news through and returns its
         * answer.
         */
        <T> T callWaitsForTheNews(String alias, Supplier<T> call) throws Exception {
            CompletableFuture<T> answer = CompletableFuture.supplyAsync(call);
            await(alias)
                    .during(Duration.ofMillis(500))
                    .atMost(Duration.ofSeconds(1))
                    .until(() -> !answer.isDone());
            release();
            return answer.get(10, TimeUnit.SECONDS);
        }

        @Override
        public void close() {
            release();
            hold.removeEntryListener(listener);
            hold.destroy();
        }
    }

    @Test
    void fifoOrderHoldsWhenSendsAndReceivesGoThroughDifferentNodes() {
        String url = viaB.createQueue(r -> r.queueName("order.fifo")
                        .attributesWithStrings(Map.of("FifoQueue", "true", "ContentBasedDeduplication", "true")))
                .queueUrl();
        for (int i = 0; i < 30; i++) {
            int n = i;
            (i % 2 == 0 ? viaA : viaB)
                    .sendMessage(
                            r -> r.queueUrl(url).messageGroupId("g" + (n % 3)).messageBody("" + n));
        }
        Map<String, Integer> last = new HashMap<>();
        int[] count = {0};
        await().atMost(Duration.ofSeconds(20)).until(() -> {
            SqsClient via = count[0] % 2 == 0 ? viaA : viaB;
            for (Message m : via.receiveMessage(r -> r.queueUrl(url)
                            .maxNumberOfMessages(10)
                            .messageSystemAttributeNamesWithStrings("MessageGroupId"))
                    .messages()) {
                String group = m.attributesAsStrings().get("MessageGroupId");
                int n = Integer.parseInt(m.body());
                assertTrue(n > last.getOrDefault(group, -1), "group " + group + " out of order at " + n);
                last.put(group, n);
                via.deleteMessage(r -> r.queueUrl(url).receiptHandle(m.receiptHandle()));
                count[0]++;
            }
            return count[0] == 30;
        });
    }
}
