package io.sluice.chaos;

import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.awaitility.core.ConditionTimeoutException;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.core.exception.ApiCallTimeoutException;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.http.SdkHttpClient;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.DeleteMessageBatchRequestEntry;
import software.amazon.awssdk.services.sqs.model.DeleteMessageBatchResponse;
import software.amazon.awssdk.services.sqs.model.DeleteMessageBatchResultEntry;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.MessageSystemAttributeName;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;
import software.amazon.awssdk.services.sqs.model.SendMessageResponse;

/**
 * Drives a steady SQS load through every node of a cluster and checks what came out.
 *
 * <p>Producers send a fixed number of numbered messages, paced over a fixed duration, to a
 * standard queue and to a FIFO queue (one producer per message group, per-group sequence numbers
 * in the body, {@code MessageDeduplicationId} = the message's unique id). A send that fails (after
 * the SDK's own retries) is retried through the next node until it is acknowledged; every
 * acknowledged send is recorded. Consumers on every node long-poll (1 s), record every delivery
 * and delete what they got. At the end a drain phase receives until every acknowledged message
 * was delivered and nothing came for a few seconds.
 *
 * <p>The {@link Report}: sent, acked, received (distinct), lost (acked, never received: must be
 * 0), duplicates and their {@link DuplicateCause}s, FIFO order violations (per group, first deliveries going backwards), deleted
 * messages that came back, the longest time during which no request succeeded, the longest gap
 * between two acknowledged sends of one FIFO group, client-visible failures and SDK retries.
 */
public final class LoadChecker implements AutoCloseable {

    /** What to send and for how long. */
    public record Options(
            int standardMessages,
            int fifoMessages,
            int fifoGroups,
            Duration sendDuration,
            int standardProducers,
            int consumersPerNodeAndQueue,
            int visibilityTimeoutSeconds,
            Duration drainQuiet,
            Duration drainMax,
            Duration giveUpSend) {

        public static Options defaults() {
            return new Options(
                    3000,
                    1500,
                    16,
                    Duration.ofSeconds(30),
                    4,
                    2,
                    8,
                    Duration.ofSeconds(3),
                    Duration.ofSeconds(60),
                    Duration.ofSeconds(60));
        }

        public Options withMessages(int standard, int fifo) {
            return new Options(
                    standard,
                    fifo,
                    fifoGroups,
                    sendDuration,
                    standardProducers,
                    consumersPerNodeAndQueue,
                    visibilityTimeoutSeconds,
                    drainQuiet,
                    drainMax,
                    giveUpSend);
        }

        public Options withSendDuration(Duration d) {
            return new Options(
                    standardMessages,
                    fifoMessages,
                    fifoGroups,
                    d,
                    standardProducers,
                    consumersPerNodeAndQueue,
                    visibilityTimeoutSeconds,
                    drainQuiet,
                    drainMax,
                    giveUpSend);
        }
    }

    /** What the checker saw. {@link #toString()} is the one-line report. */
    public record Report(
            String label,
            int nodes,
            int stdSent,
            int stdAcked,
            int stdReceived,
            int stdLost,
            int stdDuplicates,
            int stdDeletedCameBack,
            int fifoSent,
            int fifoAcked,
            int fifoReceived,
            int fifoLost,
            int fifoDuplicates,
            int fifoOrderViolations,
            int fifoDeletedCameBack,
            int unackedReceived,
            long maxNoSuccessGapMs,
            long maxNoSuccessGapAtMs,
            long maxFifoGroupAckGapMs,
            long failures,
            long retries,
            Map<String, Long> failuresByNode,
            Map<String, Long> failureKinds,
            Map<String, String> failureSamples,
            Map<String, Long> maxGapByNodeMs,
            Map<DuplicateCause, Long> stdDuplicateCauses,
            Map<DuplicateCause, Long> fifoDuplicateCauses,
            List<String> lostSample,
            List<String> violationSample,
            long durationMs) {

        public int sent() {
            return stdSent + fifoSent;
        }

        public int acked() {
            return stdAcked + fifoAcked;
        }

        public int received() {
            return stdReceived + fifoReceived;
        }

        public int lost() {
            return stdLost + fifoLost;
        }

        public int duplicates() {
            return stdDuplicates + fifoDuplicates;
        }

        /** FIFO bodies delivered under two message ids: a send the client retried that deduplication did not catch. */
        public long fifoStoredTwice() {
            return fifoDuplicateCauses.getOrDefault(DuplicateCause.RESENT, 0L);
        }

        @Override
        public String toString() {
            return String.format(
                    "[%s] nodes=%d sent=%d acked=%d received=%d lost=%d duplicates=%d | standard sent=%d acked=%d "
                            + "received=%d lost=%d dup=%d deletedCameBack=%d | fifo sent=%d acked=%d received=%d lost=%d "
                            + "dup=%d orderViolations=%d deletedCameBack=%d | unackedReceived=%d maxNoSuccessGapMs=%d "
                            + "(from %d) maxFifoGroupAckGapMs=%d clientFailures=%d sdkRetries=%d failuresByNode=%s failureKinds=%s "
                            + "maxNoSuccessGapByNodeMs=%s duplicateCauses={standard=%s, fifo=%s} durationMs=%d%s%s "
                            + "failureSamples=%s",
                    label,
                    nodes,
                    sent(),
                    acked(),
                    received(),
                    lost(),
                    duplicates(),
                    stdSent,
                    stdAcked,
                    stdReceived,
                    stdLost,
                    stdDuplicates,
                    stdDeletedCameBack,
                    fifoSent,
                    fifoAcked,
                    fifoReceived,
                    fifoLost,
                    fifoDuplicates,
                    fifoOrderViolations,
                    fifoDeletedCameBack,
                    unackedReceived,
                    maxNoSuccessGapMs,
                    maxNoSuccessGapAtMs,
                    maxFifoGroupAckGapMs,
                    failures,
                    retries,
                    failuresByNode,
                    failureKinds,
                    maxGapByNodeMs,
                    stdDuplicateCauses,
                    fifoDuplicateCauses,
                    durationMs,
                    lostSample.isEmpty() ? "" : " lostSample=" + lostSample,
                    violationSample.isEmpty() ? "" : " violations=" + violationSample,
                    failureSamples);
        }
    }

    private static final String ACCOUNT = "000000000000";
    private static final HttpClient HEALTH =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();

    private final String label;
    private final Options options;
    private final String run = Integer.toHexString(ThreadLocalRandom.current().nextInt(0x10000000, 0x7fffffff));
    private final String stdQueue;
    private final String fifoQueue;
    private final long t0 = System.nanoTime();
    private final List<NodeClient> nodes = new CopyOnWriteArrayList<>();
    private final ExecutorService producers = Executors.newCachedThreadPool(daemon("producer"));
    private final ExecutorService consumers = Executors.newCachedThreadPool(daemon("consumer"));
    private final List<Future<?>> producerTasks = new ArrayList<>();
    private final List<Future<?>> consumerTasks = new CopyOnWriteArrayList<>();
    private volatile boolean consuming = true;
    private volatile long loadStartMs = -1;
    private volatile long sendsDoneMs = -1;

    // What happened. Ids: standardId(n) "s<n>" and fifoId(group, seq) "g<group>-<seq>".
    private final Map<String, Ack> acks = new ConcurrentHashMap<>();
    private final Set<String> attempted = ConcurrentHashMap.newKeySet();
    private final Set<String> gaveUp = ConcurrentHashMap.newKeySet();
    private final Map<String, List<Delivery>> deliveries = new ConcurrentHashMap<>();
    private final AtomicInteger deliveryCount = new AtomicInteger();
    private final ConcurrentLinkedQueue<Long> successTimes = new ConcurrentLinkedQueue<>();
    private final Map<Integer, ConcurrentLinkedQueue<Long>> groupAckTimes = new ConcurrentHashMap<>();
    private final Map<String, AtomicLong> failureKinds = new ConcurrentHashMap<>();
    private final Map<String, String> failureSamples = new ConcurrentHashMap<>();
    private final AtomicLong lastDeliveryMs = new AtomicLong();

    /** An acknowledged send: when (ms since start) and through which node. */
    record Ack(long atMs, String node) {}

    /** One receive of one message, with the times (ms since start) the client saw. */
    static final class Delivery {
        final String id;
        final int group;
        final int seq;
        final long startMs;
        final long endMs;
        final int index;
        final String node;
        final String receiptHandle;
        final int receiveCount;
        /** The SQS message id: a standard message sent twice (a retried send) has two. */
        final String messageId;

        volatile long deleteAckMs = -1;

        Delivery(
                String id,
                String messageId,
                int group,
                int seq,
                long startMs,
                long endMs,
                int index,
                String node,
                String handle,
                int count) {
            this.id = id;
            this.messageId = messageId;
            this.group = group;
            this.seq = seq;
            this.startMs = startMs;
            this.endMs = endMs;
            this.index = index;
            this.node = node;
            this.receiptHandle = handle;
            this.receiveCount = count;
        }

        @Override
        public String toString() {
            return id + "@" + node + "[" + startMs + ".." + endMs + (deleteAckMs >= 0 ? ", deleted " + deleteAckMs : "")
                    + ", message " + messageId + ", receive count " + receiveCount + "]";
        }
    }

    /** The SDK client of one node and its counters. */
    final class NodeClient implements AutoCloseable {
        final String endpoint;
        final SdkHttpClient http;
        final SqsClient sqs;
        final AtomicLong calls = new AtomicLong();
        final AtomicLong attempts = new AtomicLong();
        final AtomicLong failures = new AtomicLong();
        final ConcurrentLinkedQueue<Long> successes = new ConcurrentLinkedQueue<>();
        volatile boolean removed;
        /** Producers avoid a node after a call through it timed out or could not connect, until its /health answers 200. */
        volatile boolean down;

        NodeClient(String endpoint) {
            this.endpoint = endpoint;
            this.http = UrlConnectionHttpClient.builder()
                    .connectionTimeout(Duration.ofSeconds(2))
                    .socketTimeout(Duration.ofSeconds(12))
                    .build();
            this.sqs = SqsClient.builder()
                    .endpointOverride(URI.create(endpoint))
                    .region(Region.US_EAST_1)
                    .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("x", "x")))
                    .httpClient(http)
                    .overrideConfiguration(o -> o.retryStrategy(AwsRetryStrategy.standardRetryStrategy())
                            .apiCallTimeout(Duration.ofSeconds(10))
                            .addExecutionInterceptor(new ExecutionInterceptor() {
                                @Override
                                public void beforeExecution(Context.BeforeExecution c, ExecutionAttributes a) {
                                    calls.incrementAndGet();
                                }

                                @Override
                                public void beforeTransmission(Context.BeforeTransmission c, ExecutionAttributes a) {
                                    attempts.incrementAndGet();
                                }
                            }))
                    .build();
        }

        String url(String queue) {
            return endpoint + "/" + ACCOUNT + "/" + queue;
        }

        void failed(String what, Exception e) {
            failures.incrementAndGet();
            String kind = what + ":" + e.getClass().getSimpleName();
            failureKinds.computeIfAbsent(kind, k -> new AtomicLong()).incrementAndGet();
            String message = String.valueOf(e.getMessage());
            failureSamples.putIfAbsent(
                    kind,
                    "at " + now() + " ms via " + endpoint + ": "
                            + message.substring(0, Math.min(200, message.length())));
        }

        @Override
        public void close() {
            sqs.close();
            http.close();
        }
    }

    /**
     * Creates the two queues through the first endpoint and waits until every endpoint knows them.
     *
     * @param label     name in the report
     * @param endpoints the nodes' SQS endpoints
     */
    public LoadChecker(String label, List<String> endpoints, Options options) {
        this.label = label;
        this.options = options;
        this.stdQueue = "chaos-" + label + "-" + run;
        this.fifoQueue = "chaos-" + label + "-" + run + ".fifo";
        for (String e : endpoints) {
            nodes.add(new NodeClient(e));
        }
        String vis = Integer.toString(options.visibilityTimeoutSeconds());
        NodeClient first = nodes.get(0);
        first.sqs.createQueue(r -> r.queueName(stdQueue).attributesWithStrings(Map.of("VisibilityTimeout", vis)));
        first.sqs.createQueue(r -> r.queueName(fifoQueue)
                .attributes(Map.of(QueueAttributeName.FIFO_QUEUE, "true", QueueAttributeName.VISIBILITY_TIMEOUT, vis)));
        for (NodeClient n : nodes) {
            awaitQueuesKnown(n);
        }
    }

    private void awaitQueuesKnown(NodeClient n) {
        await("queues known to " + n.endpoint)
                .atMost(Duration.ofSeconds(30))
                .ignoreExceptions()
                .pollInterval(Duration.ofMillis(200))
                .until(() -> {
                    n.sqs.getQueueUrl(r -> r.queueName(stdQueue));
                    n.sqs.getQueueUrl(r -> r.queueName(fifoQueue));
                    return true;
                });
    }

    /** Milliseconds since this checker was created. */
    public long now() {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
    }

    /** Starts consumers on every node and the paced producers. */
    public LoadChecker start() {
        loadStartMs = now();
        consumerTasks.add(consumers.submit(this::healthChecks));
        for (NodeClient n : nodes) {
            startConsumers(n);
        }
        int perProducer = options.standardProducers();
        for (int k = 0; k < perProducer; k++) {
            int producer = k;
            producerTasks.add(producers.submit(() -> produceStandard(producer, perProducer)));
        }
        for (int g = 0; g < options.fifoGroups(); g++) {
            int group = g;
            producerTasks.add(producers.submit(() -> produceFifo(group)));
        }
        return this;
    }

    /** Adds a node (already ready) to the load: producers use it and consumers start on it. */
    public void addNode(String endpoint) {
        NodeClient n = new NodeClient(endpoint);
        awaitQueuesKnown(n);
        nodes.add(n);
        if (loadStartMs >= 0) {
            startConsumers(n);
        }
    }

    /** Stops using a node that is gone for good (killed or terminated): its consumers stop, producers skip it. */
    public void removeNode(String endpoint) {
        for (NodeClient n : nodes) {
            if (n.endpoint.equals(endpoint)) {
                n.removed = true;
            }
        }
    }

    private void startConsumers(NodeClient n) {
        for (int i = 0; i < options.consumersPerNodeAndQueue(); i++) {
            consumerTasks.add(consumers.submit(() -> consume(n, stdQueue, false)));
            consumerTasks.add(consumers.submit(() -> consume(n, fifoQueue, true)));
        }
    }

    // ------------------------------------------------------------------ producers

    private void produceStandard(int producer, int producers) {
        int total = options.standardMessages();
        long spanMs = options.sendDuration().toMillis();
        for (int n = producer; n < total; n += producers) {
            long due = loadStartMs + n * spanMs / total;
            waitUntil(due);
            String id = standardId(n);
            String body = "S|" + run + "|" + id + "|" + "x".repeat(64);
            sendUntilAcked(
                    id,
                    n,
                    -1,
                    (node, url) -> node.sqs.sendMessage(r -> r.queueUrl(url).messageBody(body)),
                    stdQueue);
        }
    }

    private void produceFifo(int group) {
        int groups = options.fifoGroups();
        int count = options.fifoMessages() / groups + (group < options.fifoMessages() % groups ? 1 : 0);
        long spanMs = options.sendDuration().toMillis();
        long stagger = count == 0 ? 0 : spanMs / count * group / groups;
        for (int seq = 0; seq < count; seq++) {
            long due = loadStartMs + stagger + (long) seq * spanMs / count;
            waitUntil(due);
            String id = fifoId(group, seq);
            String body = "F|" + run + "|" + id + "|" + "y".repeat(64);
            String dedup = run + "-" + id;
            boolean acked = sendUntilAcked(
                    id,
                    group + seq,
                    group,
                    (node, url) -> node.sqs.sendMessage(r -> r.queueUrl(url)
                            .messageBody(body)
                            .messageGroupId("g" + group)
                            .messageDeduplicationId(dedup)),
                    fifoQueue);
            if (!acked) {
                return; // never send a later message of the group after one that was not acknowledged
            }
        }
    }

    private interface Send {
        SendMessageResponse send(NodeClient node, String queueUrl);
    }

    /** Sends through node {@code start mod n}, then the next ones, until acknowledged or {@code giveUpSend}. */
    private boolean sendUntilAcked(String id, int start, int group, Send send, String queue) {
        attempted.add(id);
        long deadline = now() + options.giveUpSend().toMillis();
        int attempt = 0;
        while (true) {
            NodeClient node = pick(start + attempt);
            long begin = now();
            try {
                send.send(node, node.url(queue));
                long t = now();
                acks.put(id, new Ack(t, node.endpoint));
                successTimes.add(t);
                node.successes.add(t);
                if (group >= 0) {
                    groupAckTimes
                            .computeIfAbsent(group, g -> new ConcurrentLinkedQueue<>())
                            .add(t);
                }
                return true;
            } catch (RuntimeException e) {
                node.failed("send", e);
                if (e instanceof ApiCallTimeoutException || e instanceof SdkClientException) {
                    node.down = true; // as a load balancer would, until the health check passes again
                }
                if (now() > deadline) {
                    gaveUp.add(id);
                    return false;
                }
                attempt++;
                if (now() - begin < 100) {
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100)); // back off before the next node
                }
            }
        }
    }

    private NodeClient pick(int i) {
        List<NodeClient> from =
                nodes.stream().filter(n -> !n.removed && !n.down).toList();
        if (from.isEmpty()) {
            from = nodes.stream().filter(n -> !n.removed).toList();
        }
        if (from.isEmpty()) {
            from = nodes;
        }
        return from.get(Math.floorMod(i, from.size()));
    }

    private void waitUntil(long dueMs) {
        long wait;
        while ((wait = dueMs - now()) > 0) {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(wait));
        }
    }

    /** Every 500 ms, GET /health of the nodes producers avoid; a 200 puts a node back in rotation. */
    private void healthChecks() {
        while (consuming) {
            for (NodeClient n : nodes) {
                if (n.down && !n.removed) {
                    try {
                        HttpResponse<Void> r = HEALTH.send(
                                HttpRequest.newBuilder(URI.create(n.endpoint + "/health"))
                                        .timeout(Duration.ofSeconds(1))
                                        .GET()
                                        .build(),
                                HttpResponse.BodyHandlers.discarding());
                        if (r.statusCode() == 200) {
                            n.down = false;
                        }
                    } catch (IOException e) {
                        // still down
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(500));
        }
    }

    // ------------------------------------------------------------------ consumers

    private void consume(NodeClient node, String queue, boolean fifo) {
        String url = node.url(queue);
        while (consuming && !node.removed) {
            long start = now();
            List<Message> got;
            try {
                got = node.sqs
                        .receiveMessage(r -> r.queueUrl(url)
                                .maxNumberOfMessages(10)
                                .waitTimeSeconds(1)
                                .messageSystemAttributeNames(MessageSystemAttributeName.APPROXIMATE_RECEIVE_COUNT))
                        .messages();
            } catch (RuntimeException e) {
                node.failed("receive", e);
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(250)); // back off, then try the node again
                continue;
            }
            long end = now();
            successTimes.add(end);
            node.successes.add(end);
            if (got.isEmpty()) {
                continue;
            }
            lastDeliveryMs.set(end);
            Map<String, Delivery> byEntry = new LinkedHashMap<>();
            List<DeleteMessageBatchRequestEntry> entries = new ArrayList<>();
            for (int i = 0; i < got.size(); i++) {
                Message m = got.get(i);
                String[] parts = m.body().split("\\|");
                if (parts.length < 3 || !run.equals(parts[1])) {
                    continue;
                }
                String id = parts[2];
                int group = -1;
                int seq = -1;
                if (fifo) {
                    int dash = id.indexOf('-');
                    group = Integer.parseInt(id.substring(1, dash));
                    seq = Integer.parseInt(id.substring(dash + 1));
                }
                String count = m.attributesAsStrings().get("ApproximateReceiveCount");
                Delivery d = new Delivery(
                        id,
                        m.messageId(),
                        group,
                        seq,
                        start,
                        end,
                        i,
                        node.endpoint,
                        m.receiptHandle(),
                        count == null ? -1 : Integer.parseInt(count));
                deliveries
                        .computeIfAbsent(id, k -> new CopyOnWriteArrayList<>())
                        .add(d);
                deliveryCount.incrementAndGet();
                String entryId = "e" + i;
                byEntry.put(entryId, d);
                entries.add(DeleteMessageBatchRequestEntry.builder()
                        .id(entryId)
                        .receiptHandle(m.receiptHandle())
                        .build());
            }
            if (entries.isEmpty()) {
                continue;
            }
            try {
                DeleteMessageBatchResponse r =
                        node.sqs.deleteMessageBatch(b -> b.queueUrl(url).entries(entries));
                long t = now();
                successTimes.add(t);
                node.successes.add(t);
                for (DeleteMessageBatchResultEntry ok : r.successful()) {
                    byEntry.get(ok.id()).deleteAckMs = t;
                }
                if (r.hasFailed() && !r.failed().isEmpty()) {
                    node.failures.addAndGet(r.failed().size());
                    r.failed().forEach(f -> {
                        failureKinds
                                .computeIfAbsent("deleteEntry:" + f.code(), k -> new AtomicLong())
                                .incrementAndGet();
                        failureSamples.putIfAbsent(
                                "deleteEntry:" + f.code(), "at " + t + " ms via " + node.endpoint + ": " + f.message());
                    });
                }
            } catch (RuntimeException e) {
                node.failed("delete", e); // the messages come back after their visibility timeout: duplicates
            }
        }
    }

    // ------------------------------------------------------------------ end and report

    /** Waits for the producers, drains the queues, stops the consumers and checks everything. */
    public Report finish() {
        long producersDeadline = System.nanoTime()
                + options.sendDuration()
                        .plus(options.giveUpSend())
                        .plusSeconds(30)
                        .toNanos();
        for (Future<?> f : producerTasks) {
            try {
                f.get(Math.max(1, producersDeadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (Exception e) {
                failureKinds
                        .computeIfAbsent("producer:" + e.getClass().getSimpleName(), k -> new AtomicLong())
                        .incrementAndGet();
            }
        }
        sendsDoneMs = now();
        try {
            await("every acknowledged message delivered")
                    .atMost(options.drainMax())
                    .pollInterval(Duration.ofMillis(200))
                    .until(() -> lostIds(acks.keySet()).isEmpty());
        } catch (ConditionTimeoutException e) {
            // reported as lost below
        }
        try {
            await("nothing delivered for " + options.drainQuiet())
                    .atMost(options.drainQuiet().plusSeconds(20))
                    .pollInterval(Duration.ofMillis(200))
                    .until(() ->
                            now() - lastDeliveryMs.get() >= options.drainQuiet().toMillis());
        } catch (ConditionTimeoutException e) {
            // still delivering (duplicates); the report says so
        }
        consuming = false;
        for (Future<?> f : consumerTasks) {
            try {
                f.get(20, TimeUnit.SECONDS);
            } catch (Exception e) {
                f.cancel(true);
            }
        }
        return report();
    }

    private List<String> lostIds(Collection<String> acked) {
        List<String> lost = new ArrayList<>();
        for (String id : acked) {
            if (!deliveries.containsKey(id)) {
                lost.add(id);
            }
        }
        return lost;
    }

    /** The report of what was seen so far. */
    public Report report() {
        Set<String> stdAcked = new HashSet<>();
        Set<String> fifoAcked = new HashSet<>();
        for (String id : acks.keySet()) {
            (isStandard(id) ? stdAcked : fifoAcked).add(id);
        }
        int stdSent = (int) attempted.stream().filter(LoadChecker::isStandard).count();
        int fifoSent = attempted.size() - stdSent;
        int stdReceived = 0;
        int fifoReceived = 0;
        int stdDup = 0;
        int fifoDup = 0;
        int unackedReceived = 0;
        for (Map.Entry<String, List<Delivery>> e : deliveries.entrySet()) {
            boolean std = isStandard(e.getKey());
            if (std) {
                stdReceived++;
                stdDup += e.getValue().size() - 1;
            } else {
                fifoReceived++;
                fifoDup += e.getValue().size() - 1;
            }
            if (!acks.containsKey(e.getKey())) {
                unackedReceived++;
            }
        }
        List<String> stdLost = lostIds(stdAcked);
        List<String> fifoLost = lostIds(fifoAcked);
        List<String> violations = new ArrayList<>();
        int order = fifoOrderViolations(violations);
        int stdBack = deletedCameBack(true, violations);
        int fifoBack = deletedCameBack(false, violations);
        Map<String, Long> byNode = new TreeMap<>();
        long failures = 0;
        long retries = 0;
        for (NodeClient n : nodes) {
            byNode.put(n.endpoint.substring(n.endpoint.lastIndexOf(':') + 1), n.failures.get());
            failures += n.failures.get();
            retries += Math.max(0, n.attempts.get() - n.calls.get());
        }
        Map<String, Long> kinds = new TreeMap<>();
        failureKinds.forEach((k, v) -> kinds.put(k, v.get()));
        Map<String, Long> gapByNode = new TreeMap<>();
        for (NodeClient n : nodes) {
            gapByNode.put(n.endpoint.substring(n.endpoint.lastIndexOf(':') + 1), maxNoSuccessGap(n.successes)[0]);
        }
        List<String> lostSample = new ArrayList<>();
        for (List<String> lost : List.of(stdLost, fifoLost)) {
            lost.stream().sorted().limit(10).forEach(id -> {
                Ack a = acks.get(id);
                lostSample.add(id + " (acked at " + a.atMs() + " via " + a.node() + ")");
            });
        }
        long[] gap = maxNoSuccessGap(successTimes);
        return new Report(
                label,
                nodes.size(),
                stdSent,
                stdAcked.size(),
                stdReceived,
                stdLost.size(),
                stdDup,
                stdBack,
                fifoSent,
                fifoAcked.size(),
                fifoReceived,
                fifoLost.size(),
                fifoDup,
                order,
                fifoBack,
                unackedReceived,
                gap[0],
                gap[1],
                maxGroupAckGap(),
                failures,
                retries,
                byNode,
                kinds,
                new TreeMap<>(failureSamples),
                gapByNode,
                duplicateCauses(true, violations),
                duplicateCauses(false, violations),
                lostSample,
                violations.stream().limit(20).toList(),
                (sendsDoneMs < 0 ? now() : sendsDoneMs) - loadStartMs);
    }

    /** Why a message was delivered again, as {@link #duplicateCauses} judges it. */
    public enum DuplicateCause {
        /** A send the client retried stored the body again, under another SQS message id. */
        RESENT,
        /**
         * An earlier delivery of the same SQS message was never acknowledged as deleted (its delete
         * failed or was not sent), so the message came back after its visibility timeout.
         */
        UNDELETED,
        /**
         * Every earlier delivery's delete was acknowledged, one of them only after this delivery
         * started: the consumer held it past its visibility timeout.
         */
        HELD_TOO_LONG,
        /** Every earlier delivery's delete was acknowledged before this one started; {@link #deletedCameBack} judges those. */
        AFTER_DELETE
    }

    /**
     * Each delivery after a message's first on the standard or the FIFO queue, counted by its
     * {@link DuplicateCause}. A FIFO body stored twice also goes to {@code out}: deduplication must
     * have answered the retry with the first message's id.
     */
    private Map<DuplicateCause, Long> duplicateCauses(boolean standard, List<String> out) {
        Map<DuplicateCause, Long> causes = new EnumMap<>(DuplicateCause.class);
        for (Map.Entry<String, List<Delivery>> e : deliveries.entrySet()) {
            if (isStandard(e.getKey()) != standard) {
                continue;
            }
            List<Delivery> ds = new ArrayList<>(e.getValue());
            ds.sort(Comparator.comparingLong((Delivery d) -> d.startMs).thenComparingInt(d -> d.index));
            for (int i = 1; i < ds.size(); i++) {
                Delivery later = ds.get(i);
                List<Delivery> same = ds.subList(0, i).stream()
                        .filter(d -> d.messageId.equals(later.messageId))
                        .toList();
                DuplicateCause cause;
                if (same.isEmpty()) {
                    cause = DuplicateCause.RESENT;
                    if (!standard) {
                        out.add("FIFO body stored twice: " + ds.get(0) + " then " + later);
                    }
                } else if (same.stream().anyMatch(d -> d.deleteAckMs < 0)) {
                    cause = DuplicateCause.UNDELETED;
                } else if (same.stream().anyMatch(d -> d.deleteAckMs > later.startMs)) {
                    cause = DuplicateCause.HELD_TOO_LONG;
                } else {
                    cause = DuplicateCause.AFTER_DELETE;
                }
                causes.merge(cause, 1L, Long::sum);
            }
        }
        return causes;
    }

    /** The id of the standard queue's {@code n}th message (the body carries it). */
    private static String standardId(int n) {
        return "s" + n;
    }

    /** The id of FIFO group {@code group}'s message {@code seq}. */
    private static String fifoId(int group, int seq) {
        return "g" + group + "-" + seq;
    }

    /** Whether {@code id} is one of {@link #standardId}'s, not {@link #fifoId}'s. */
    private static boolean isStandard(String id) {
        return id.startsWith("s");
    }

    /** Per group, ordered by when the client got them: a first delivery of a lower sequence after a higher one. */
    private int fifoOrderViolations(List<String> out) {
        Map<Integer, List<Delivery>> byGroup = new HashMap<>();
        for (Map.Entry<String, List<Delivery>> e : deliveries.entrySet()) {
            if (!isStandard(e.getKey())) {
                for (Delivery d : e.getValue()) {
                    byGroup.computeIfAbsent(d.group, g -> new ArrayList<>()).add(d);
                }
            }
        }
        int violations = 0;
        for (Map.Entry<Integer, List<Delivery>> e : byGroup.entrySet()) {
            List<Delivery> ds = e.getValue();
            ds.sort(Comparator.comparingLong((Delivery d) -> d.endMs).thenComparingInt(d -> d.index));
            Set<Integer> seen = new HashSet<>();
            int max = -1;
            for (Delivery d : ds) {
                if (seen.add(d.seq)) {
                    if (d.seq < max) {
                        violations++;
                        out.add("order: group " + e.getKey() + " first delivery of seq " + d.seq + " after seq " + max
                                + " " + d);
                    }
                    max = Math.max(max, d.seq);
                }
            }
        }
        return violations;
    }

    /**
     * A delivery that started after a delete was acknowledged, when no other delivery of the
     * message overlapped the time between the deleted receive and the delete's acknowledgement
     * (such an overlapping receive would have made the deleted handle outdated: then SQS's delete
     * succeeds without deleting). On a standard queue only a delivery of the same SQS message
     * counts: a send the client retried after a failure may have stored the body twice, under two
     * message ids, which at-least-once delivery allows (the duplicates count covers it). On a FIFO
     * queue deduplication must prevent that, so any later delivery of the body counts.
     */
    private int deletedCameBack(boolean standard, List<String> out) {
        int count = 0;
        for (Map.Entry<String, List<Delivery>> e : deliveries.entrySet()) {
            if (isStandard(e.getKey()) != standard) {
                continue;
            }
            List<Delivery> ds = e.getValue();
            for (Delivery deleted : ds) {
                long ack = deleted.deleteAckMs;
                if (ack < 0) {
                    continue;
                }
                boolean authoritative =
                        ds.stream().noneMatch(x -> x != deleted && x.endMs >= deleted.startMs && x.startMs <= ack);
                if (!authoritative) {
                    continue;
                }
                for (Delivery later : ds) {
                    if (later.startMs > ack && (!standard || later.messageId.equals(deleted.messageId))) {
                        count++;
                        out.add((standard ? "standard" : "FIFO") + " deleted came back: " + deleted + " then " + later);
                    }
                }
            }
        }
        return count;
    }

    /** Longest time, while producers were sending, between two successful requests of any kind: {length, start}. */
    private long[] maxNoSuccessGap(Collection<Long> successes) {
        long from = loadStartMs;
        long to = sendsDoneMs < 0 ? now() : sendsDoneMs;
        List<Long> times = new ArrayList<>(successes);
        times.add(from);
        times.add(to);
        times.sort(null);
        long max = 0;
        long at = from;
        long prev = from;
        for (long t : times) {
            if (t < from || t > to) {
                continue;
            }
            if (t - prev > max) {
                max = t - prev;
                at = prev;
            }
            prev = t;
        }
        return new long[] {max, at};
    }

    /** Longest gap between two acknowledged sends of one FIFO group (or from the start to its first). */
    private long maxGroupAckGap() {
        long max = 0;
        for (ConcurrentLinkedQueue<Long> q : groupAckTimes.values()) {
            List<Long> times = new ArrayList<>(q);
            times.sort(null);
            long prev = loadStartMs;
            for (long t : times) {
                max = Math.max(max, t - prev);
                prev = t;
            }
        }
        return max;
    }

    /**
     * How long after {@code eventMs} (see {@link #now()}) every FIFO group that still had messages
     * to send got its next send acknowledged: the time until every partition answered again.
     * Returns -1 if no group sent after the event.
     */
    public long recoveredAfter(long eventMs) {
        long max = -1;
        for (ConcurrentLinkedQueue<Long> q : groupAckTimes.values()) {
            long first = q.stream().filter(t -> t >= eventMs).min(Long::compare).orElse(-1L);
            if (first >= 0) {
                max = Math.max(max, first - eventMs);
            }
        }
        return max;
    }

    /** FIFO groups that had no acknowledged send from {@code eventMs} to {@code eventMs + windowMs}, although they sent later. */
    public List<Integer> groupsSilentAfter(long eventMs, long windowMs) {
        List<Integer> silent = new ArrayList<>();
        groupAckTimes.forEach((g, q) -> {
            boolean later = q.stream().anyMatch(t -> t >= eventMs);
            boolean inWindow = q.stream().anyMatch(t -> t >= eventMs && t <= eventMs + windowMs);
            if (later && !inWindow) {
                silent.add(g);
            }
        });
        return silent;
    }

    /** Client-visible failures (after the SDK's retries) of requests sent through {@code endpoint}. */
    public long failuresThrough(String endpoint) {
        return nodes.stream()
                .filter(n -> n.endpoint.equals(endpoint))
                .mapToLong(n -> n.failures.get())
                .sum();
    }

    /** Whether producers have sent everything (or given up). */
    public boolean sending() {
        return producerTasks.stream().anyMatch(f -> !f.isDone());
    }

    public String standardQueue() {
        return stdQueue;
    }

    public String fifoQueue() {
        return fifoQueue;
    }

    @Override
    public void close() {
        consuming = false;
        producers.shutdownNow();
        consumers.shutdownNow();
        try {
            consumers.awaitTermination(15, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        for (NodeClient n : nodes) {
            n.close();
        }
    }

    private static ThreadFactory daemon(String prefix) {
        AtomicInteger n = new AtomicInteger();
        return r -> {
            Thread t = new Thread(r, "chaos-" + prefix + "-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
    }
}
