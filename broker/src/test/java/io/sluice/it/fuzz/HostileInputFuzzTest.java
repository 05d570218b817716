package io.sluice.it.fuzz;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.sluice.config.BrokerConfig;
import io.sluice.it.BrokerExtension;
import io.sluice.it.fuzz.FuzzRequest.Expected;
import io.sluice.it.fuzz.WireConnection.Answer;
import io.sluice.it.fuzz.WireConnection.ClosedWithoutAnswer;
import io.sluice.server.SluiceNode;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.EdgeCasesMode;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.ShrinkingMode;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.AfterProperty;
import net.jqwik.api.lifecycle.BeforeContainer;
import net.jqwik.api.statistics.Statistics;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.http.SdkHttpClient;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.ChangeMessageVisibilityBatchRequestEntry;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.MessageAttributeValue;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchRequestEntry;

/**
 * Hostile input against a running node (issue 8): some 10^5 generated requests over both
 * protocols on keep-alive sockets, several in flight, then slow, truncated and stalled requests
 * and more connections than the node takes. Whatever comes in, the node answers every request
 * with an SQS answer in the request's protocol and never with a 5xx, closes what it cannot read
 * within its idle timeout rather than hanging, stays up, and keeps every message it held before.
 *
 * <p>The generators ({@link SqsFuzz}) only name queues of their own ({@code fz-...}); the canary
 * queue, filled before the fuzzing, is out of their reach and must come out untouched. The seed
 * is fixed, so a failure comes back the same way.
 */
class HostileInputFuzzTest {

    private static final int IDLE_TIMEOUT_SECONDS = 4;
    private static final int MAX_CONNECTIONS = 64;
    private static final int SENDERS = 16;
    /** Generated cases per try: a call goes out over both protocols, so about 1.6 requests each. */
    private static final int CASES_PER_TRY = 275;

    private static final int TRIES = 250;
    private static final int SIGNING_TRIES = 25;
    private static final int ANSWER_TIMEOUT_MILLIS = 10_000;
    private static final int CANARY_MESSAGES = 50;

    private static final String ACCESS_KEY = "AKIDFUZZ";

    private static BrokerConfig config;
    private static SluiceNode node;
    /** A second node that requires signatures, for the signing part of the fuzzing. */
    private static SluiceNode signingNode;

    private static SdkHttpClient sdkHttp;
    private static SqsClient sqs;
    private static SqsFuzz fuzz;
    private static ExecutorService senders;
    private static Campaign open;
    private static Campaign signing;
    private static String canaryUrl;
    private static String canaryName;
    private static final Map<String, String> CANARY = new HashMap<>();
    private static final HttpClient HEALTH_CLIENT = HttpClient.newHttpClient();

    @BeforeContainer
    static void startNodes() {
        config = BrokerExtension.testConfig(
                "--idle-timeout",
                Integer.toString(IDLE_TIMEOUT_SECONDS),
                "--max-connections",
                Integer.toString(MAX_CONNECTIONS));
        node = SluiceNode.start(config);
        signingNode = SluiceNode.start(BrokerExtension.testConfig(
                "--idle-timeout",
                Integer.toString(IDLE_TIMEOUT_SECONDS),
                "--max-connections",
                Integer.toString(MAX_CONNECTIONS),
                "--credentials",
                ACCESS_KEY + ":fuzz-secret"));
        sdkHttp = UrlConnectionHttpClient.builder()
                .connectionTimeout(Duration.ofSeconds(5))
                .socketTimeout(Duration.ofSeconds(30))
                .build();
        sqs = SqsClient.builder()
                .endpointOverride(URI.create(node.baseUrl()))
                .region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("x", "x")))
                .httpClient(sdkHttp)
                .overrideConfiguration(o -> o.retryStrategy(AwsRetryStrategy.doNotRetry()))
                .build();
        fillCanary();
        List<String> handles = fuzzQueues();
        fuzz = new SqsFuzz(new SqsFuzz.Target(
                "127.0.0.1:" + node.port(),
                node.baseUrl(),
                BrokerExtension.ACCOUNT,
                handles,
                config.maxRequestBytes(),
                config.http().maxHeaderBytes(),
                config.http().maxInitialLineBytes()));
        senders = Executors.newFixedThreadPool(SENDERS, r -> {
            Thread t = new Thread(r, "fuzz-sender");
            t.setDaemon(true);
            return t;
        });
        open = new Campaign("open", node, TRIES, false);
        signing = new Campaign("signing", signingNode, SIGNING_TRIES, true);
    }

    /** Messages stored before any hostile request, in a queue outside the fuzzing's name space. */
    private static void fillCanary() {
        canaryName = BrokerExtension.uniqueName("canary");
        canaryUrl = sqs.createQueue(b -> b.queueName(canaryName)).queueUrl();
        for (int batch = 0; batch < CANARY_MESSAGES / 10; batch++) {
            List<SendMessageBatchRequestEntry> entries = new ArrayList<>();
            for (int i = 0; i < 10; i++) {
                entries.add(SendMessageBatchRequestEntry.builder()
                        .id("m" + i)
                        .messageBody("canary " + (batch * 10 + i) + " \u00e9\ud83d\ude00 <&>")
                        .messageAttributes(Map.of(
                                "n",
                                MessageAttributeValue.builder()
                                        .dataType("Number")
                                        .stringValue(Integer.toString(batch * 10 + i))
                                        .build()))
                        .build());
            }
            sqs.sendMessageBatch(b -> b.queueUrl(canaryUrl).entries(entries))
                    .successful()
                    .forEach(ok -> CANARY.put(
                            ok.messageId(),
                            entries.get(Integer.parseInt(ok.id().substring(1))).messageBody()));
        }
        assertEquals(CANARY_MESSAGES, CANARY.size(), "canary messages stored");
    }

    /** The fuzzing's own queues, with messages whose receipt handles the generators forge and cut. */
    private static List<String> fuzzQueues() {
        String std = sqs.createQueue(b -> b.queueName("fz-std")).queueUrl();
        String fifo = sqs.createQueue(b -> b.queueName("fz-fifo.fifo")
                        .attributes(Map.of(
                                QueueAttributeName.FIFO_QUEUE,
                                "true",
                                QueueAttributeName.CONTENT_BASED_DEDUPLICATION,
                                "true")))
                .queueUrl();
        sqs.createQueue(b -> b.queueName("fz-dlq"));
        for (int i = 0; i < 20; i++) {
            String body = "fz " + i;
            sqs.sendMessage(b -> b.queueUrl(std).messageBody(body));
            sqs.sendMessage(b -> b.queueUrl(fifo).messageBody(body).messageGroupId("g" + body.length() % 3));
        }
        List<String> handles = new ArrayList<>();
        for (String url : List.of(std, fifo)) {
            for (int i = 0; i < 4; i++) {
                sqs.receiveMessage(b -> b.queueUrl(url).maxNumberOfMessages(10).visibilityTimeout(600))
                        .messages()
                        .forEach(m -> handles.add(m.receiptHandle()));
            }
        }
        assertTrue(handles.size() >= 20, "receipt handles to forge: " + handles.size());
        return handles;
    }

    @AfterContainer
    static void stopNodes() {
        if (senders != null) {
            senders.shutdownNow();
        }
        if (sqs != null) {
            sqs.close();
        }
        if (sdkHttp != null) {
            sdkHttp.close();
        }
        if (signingNode != null) {
            signingNode.close();
        }
        if (node != null) {
            node.close();
        }
    }

    /** After every property: both nodes answer and are ready, and the canary holds all its messages. */
    @AfterProperty
    void nodesAliveAndCanaryIntact() throws Exception {
        open.closeConnections();
        signing.closeConnections();
        for (SluiceNode n : List.of(node, signingNode)) {
            HttpResponse<String> health = HEALTH_CLIENT.send(
                    HttpRequest.newBuilder(URI.create(n.baseUrl() + "/health"))
                            .timeout(Duration.ofSeconds(10))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(200, health.statusCode(), "health after the fuzzing: " + health.body());
        }
        assertTrue(
                sqs.listQueues(b -> b.queueNamePrefix(canaryName)).queueUrls().contains(canaryUrl));
        assertCanaryIntact();
    }

    /**
     * Receives every canary message (each receive looks at every partition: the test node does not
     * sample), compares ids and bodies, then makes them visible again for the next check.
     */
    private static void assertCanaryIntact() {
        Map<String, Message> seen = new HashMap<>();
        await("all " + CANARY.size() + " canary messages received")
                .atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(50))
                .until(() -> {
                    sqs.receiveMessage(b -> b.queueUrl(canaryUrl)
                                    .maxNumberOfMessages(10)
                                    .visibilityTimeout(120)
                                    .messageAttributeNames("All"))
                            .messages()
                            .forEach(m -> seen.put(m.messageId(), m));
                    return seen.size() >= CANARY.size();
                });
        assertEquals(CANARY.keySet(), seen.keySet(), "canary message ids");
        for (Message m : seen.values()) {
            assertEquals(CANARY.get(m.messageId()), m.body(), "body of canary message " + m.messageId());
            assertTrue(m.messageAttributes().containsKey("n"), "attribute of canary message " + m.messageId());
        }
        List<Message> all = new ArrayList<>(seen.values());
        for (int i = 0; i < all.size(); i += 10) {
            List<ChangeMessageVisibilityBatchRequestEntry> entries = new ArrayList<>();
            for (Message m : all.subList(i, Math.min(all.size(), i + 10))) {
                entries.add(ChangeMessageVisibilityBatchRequestEntry.builder()
                        .id("e" + entries.size())
                        .receiptHandle(m.receiptHandle())
                        .visibilityTimeout(0)
                        .build());
            }
            assertTrue(
                    sqs.changeMessageVisibilityBatch(b -> b.queueUrl(canaryUrl).entries(entries))
                            .failed()
                            .isEmpty());
        }
    }

    // ------------------------------------------------------------------ the bulk

    @Provide
    Arbitrary<List<FuzzRequest>> batches() {
        return flattened(fuzz.requests(), CASES_PER_TRY);
    }

    @Provide
    Arbitrary<List<FuzzRequest>> signedBatches() {
        return flattened(fuzz.signedRequests(ACCESS_KEY), CASES_PER_TRY);
    }

    private static Arbitrary<List<FuzzRequest>> flattened(Arbitrary<List<FuzzRequest>> cases, int count) {
        return cases.list().ofSize(count).map(all -> {
            List<FuzzRequest> batch = new ArrayList<>();
            all.forEach(batch::addAll);
            return batch;
        });
    }

    /**
     * The bulk: about 10^5 generated requests, every one answered with an SQS answer in its
     * protocol and never a 5xx, nothing hanging.
     */
    @Property(tries = TRIES, seed = "20261201", shrinking = ShrinkingMode.OFF, edgeCases = EdgeCasesMode.NONE)
    void everyHostileRequestGetsAnSqsAnswer(@ForAll("batches") List<FuzzRequest> batch) throws Exception {
        open.run(batch);
    }

    /**
     * The same kinds of request at a node that requires signatures, with Authorization headers and
     * presigned query strings broken in every part: each refused in its protocol, none served.
     */
    @Property(tries = SIGNING_TRIES, seed = "20261202", shrinking = ShrinkingMode.OFF, edgeCases = EdgeCasesMode.NONE)
    void noHostileRequestGetsPastTheSignatureCheck(@ForAll("signedBatches") List<FuzzRequest> batch) throws Exception {
        signing.run(batch);
    }

    /** One outcome of one request: its category, what came back, and what was wrong with it if anything. */
    private record Outcome(String category, String answer, String failure) {}

    /** A batch on the wire: how many requests it has, and the senders working through it. */
    private record Sending(int requests, List<Future<List<Outcome>>> senders) {}

    /**
     * Fuzzing one node. Each try sends a batch over {@value #SENDERS} keep-alive connections and
     * checks the answers of the batch before it, so that jqwik generates a batch while the previous
     * one is on the wire. A failure is reported with the requests that caused it, whichever try
     * found it.
     */
    private static final class Campaign {
        private final String name;
        private final SluiceNode target;
        private final int tries;
        /** A node that requires signatures: no SQS request may be served. */
        private final boolean signing;

        private final BlockingQueue<WireConnection> connections = new ArrayBlockingQueue<>(SENDERS);
        private Sending inFlight;
        private int triesRun;
        private long requests;
        private final AtomicLong closedInstead = new AtomicLong();
        private long start;

        Campaign(String name, SluiceNode target, int tries, boolean signing) {
            this.name = name;
            this.target = target;
            this.tries = tries;
            this.signing = signing;
        }

        void run(List<FuzzRequest> batch) throws Exception {
            if (triesRun == 0) {
                start = System.nanoTime();
            }
            ConcurrentLinkedQueue<FuzzRequest> work = new ConcurrentLinkedQueue<>(batch);
            List<Future<List<Outcome>>> running = new ArrayList<>();
            for (int i = 0; i < SENDERS; i++) {
                running.add(senders.submit(() -> sendAll(work)));
            }
            Sending sending = new Sending(batch.size(), running);
            Sending previous = inFlight;
            inFlight = sending;
            boolean last = ++triesRun == tries;
            if (previous != null) {
                check(previous);
            }
            if (last) {
                inFlight = null;
                check(sending);
                long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                System.out.printf(
                        Locale.ROOT,
                        "hostile input (%s node): %d requests in %.1f s (%.0f/s), %d of them closed"
                                + " by the server (framing it could not read)%n",
                        name,
                        requests,
                        ms / 1000.0,
                        requests * 1000.0 / Math.max(1, ms),
                        closedInstead.get());
                if (!signing) {
                    assertTrue(requests >= 100_000, "at least 10^5 requests: " + requests);
                }
            }
        }

        private void check(Sending sending) throws Exception {
            List<Outcome> outcomes = new ArrayList<>();
            for (Future<List<Outcome>> f : sending.senders) {
                try {
                    outcomes.addAll(f.get(120, TimeUnit.SECONDS));
                } catch (TimeoutException e) {
                    fail("a batch of requests did not finish within 120 s");
                }
            }
            List<String> failures = new ArrayList<>();
            for (Outcome o : outcomes) {
                Statistics.label("category").collect(o.category);
                Statistics.label("answer").collect(o.answer);
                if (o.failure != null) {
                    failures.add(o.failure);
                }
            }
            assertEquals(sending.requests, outcomes.size(), "requests answered or failed, of those sent");
            requests += outcomes.size();
            if (!failures.isEmpty()) {
                fail(failures.size() + " of " + outcomes.size()
                        + " requests were not answered properly; the first ones:\n\n"
                        + String.join("\n\n", failures.subList(0, Math.min(8, failures.size()))));
            }
        }

        /** One sender: takes requests off the shared queue and sends them on its own keep-alive connection. */
        private List<Outcome> sendAll(ConcurrentLinkedQueue<FuzzRequest> work) {
            WireConnection c = connections.poll();
            if (c == null) {
                c = new WireConnection(
                        "127.0.0.1", target.port(), ANSWER_TIMEOUT_MILLIS, (IDLE_TIMEOUT_SECONDS * 1000L) / 2);
            }
            List<Outcome> out = new ArrayList<>();
            try {
                FuzzRequest r;
                while ((r = work.poll()) != null) {
                    out.add(send(c, r));
                }
            } finally {
                if (!connections.offer(c)) {
                    c.close();
                }
            }
            return out;
        }

        private Outcome send(WireConnection c, FuzzRequest r) {
            if (mentionsCanary(r)) {
                return new Outcome(r.category(), "-", "the generator named the canary queue:\n  " + r.describe());
            }
            try {
                Answer answer = c.exchange(r);
                String problem = SqsAnswers.problem(r, answer);
                if (problem == null && signing && answer.status() < 300 && r.expected() != Expected.NONE) {
                    problem = "served by a node that requires signatures, though not signed";
                }
                String label = answer.status() + " " + SqsAnswers.codeOf(answer);
                if (problem == null) {
                    return new Outcome(r.category(), label, null);
                }
                String body = answer.bodyText();
                return new Outcome(
                        r.category(),
                        label,
                        r.describe() + "\n  -> " + problem + "\n  answer: " + answer.status() + " " + answer.headers()
                                + "\n  " + body.substring(0, Math.min(400, body.length())));
            } catch (SocketTimeoutException e) {
                return new Outcome(
                        r.category(),
                        "hung",
                        r.describe() + "\n  -> no answer within " + ANSWER_TIMEOUT_MILLIS
                                + " ms: the connection hangs");
            } catch (ClosedWithoutAnswer e) {
                if (r.mayClose()) {
                    closedInstead.incrementAndGet();
                    return new Outcome(r.category(), "closed", null);
                }
                return new Outcome(r.category(), "closed", r.describe() + "\n  -> " + e.getMessage());
            } catch (IOException | RuntimeException e) {
                return new Outcome(r.category(), "error", r.describe() + "\n  -> " + e);
            }
        }

        void closeConnections() {
            WireConnection c;
            while ((c = connections.poll()) != null) {
                c.close();
            }
        }
    }

    private static boolean mentionsCanary(FuzzRequest r) {
        if (contains(r.head(), "canary")) {
            return true;
        }
        for (FuzzRequest.Body.Segment s : r.body().segments()) {
            if (contains(s.bytes(), "canary")) {
                return true;
            }
        }
        return false;
    }

    /** Whether the bytes hold a lower-case ASCII word in any case. */
    private static boolean contains(byte[] bytes, String word) {
        byte[] needle = word.getBytes(StandardCharsets.US_ASCII);
        outer:
        for (int i = 0; i + needle.length <= bytes.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if ((bytes[i + j] | 0x20) != needle[j]) {
                    continue outer;
                }
            }
            return true;
        }
        return false;
    }

    // ------------------------------------------------------------------ slow, truncated, stalled

    /**
     * A raw-socket scenario: the pieces it sends with a pause between each, whether it then shuts
     * its side down (or else just waits), and the protocol of the answer it must get (null: the
     * server must close the connection, after an answer or not).
     */
    private record Slow(String name, List<byte[]> pieces, long pauseMillis, boolean halfClose, Expected answerIn) {}

    /**
     * Truncated and stalled requests are closed within the idle timeout (answered first, if at all,
     * with no 5xx). A body dribbled in for longer than the idle timeout, but never idle that long,
     * is served; a head must arrive within the idle timeout, however steadily it trickles (slow
     * loris). Thirty stalled connections do not keep a normal request waiting.
     */
    @Example
    void slowAndTruncatedRequestsAreClosedOrServedNeverHung() throws Exception {
        // A queue of its own: the fuzzing may have deleted any of the fz- queues.
        String queue = BrokerExtension.uniqueName("drip");
        sqs.createQueue(b -> b.queueName(queue));
        String json = "{\"QueueUrl\":\"" + queue + "\",\"MessageBody\":\"slow but whole\"}";
        String jsonHead = "POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-amz-json-1.0\r\n"
                + "X-Amz-Target: AmazonSQS.SendMessage\r\nContent-Length: " + json.length() + "\r\n\r\n";
        String form = "Action=SendMessage&QueueUrl=" + queue + "&MessageBody=slow+head";
        String[] formHeadLines = {
            "POST / HTTP/1.1\r\n",
            "Host: x\r\n",
            "Content-Type: application/x-www-form-urlencoded\r\n",
            "User-Agent: drip\r\n",
            "X-A: 1\r\n",
            "X-B: 2\r\n",
            "X-C: 3\r\n",
            "X-D: 4\r\n",
            "X-E: 5\r\n",
            "Content-Length: " + form.length() + "\r\n",
            "\r\n"
        };
        List<byte[]> dripHead = new ArrayList<>();
        for (String line : formHeadLines) {
            dripHead.add(bytes(line));
        }
        List<byte[]> dripHeadAndBody = new ArrayList<>(dripHead);
        dripHeadAndBody.add(bytes(form));
        List<byte[]> dripBody = new ArrayList<>();
        dripBody.add(bytes(jsonHead));
        for (int i = 0; i < json.length(); i += 5) {
            dripBody.add(bytes(json.substring(i, Math.min(json.length(), i + 5))));
        }
        long dripPause = (IDLE_TIMEOUT_SECONDS * 1000L) / 6;
        long quickDripPause = (IDLE_TIMEOUT_SECONDS * 1000L) / 4 / dripHead.size();
        List<Slow> scenarios = new ArrayList<>(List.of(
                new Slow(
                        "body cut short",
                        List.of(
                                bytes(jsonHead.replace("Content-Length: " + json.length(), "Content-Length: 100")),
                                bytes(json.substring(0, 10))),
                        0,
                        false,
                        null),
                new Slow(
                        "chunked body cut short",
                        List.of(bytes("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n"
                                + "Content-Type: application/x-www-form-urlencoded\r\n\r\n10\r\nAction=ListQue")),
                        0,
                        false,
                        null),
                new Slow("head cut short", List.of(bytes("POST / HTTP/1.1\r\nHost: x\r\nContent-Le")), 0, false, null),
                new Slow("nothing sent", List.of(), 0, false, null),
                new Slow(
                        "chunk larger than what follows",
                        List.of(bytes("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked"
                                + "\r\n\r\n10\r\nabc\r\n0\r\n\r\n")),
                        0,
                        false,
                        null),
                new Slow("half-closed mid-body", List.of(bytes(jsonHead), bytes(json.substring(0, 10))), 0, true, null),
                new Slow("body dribbled in", dripBody, dripPause, false, Expected.JSON),
                new Slow(
                        "head dribbled in within the idle timeout",
                        dripHeadAndBody,
                        quickDripPause,
                        false,
                        Expected.QUERY),
                // The idle timeout counts from the last complete HTTP object: a head that takes longer
                // in total is cut however steadily it trickles in (slow loris).
                new Slow("head dribbled in for longer than the idle timeout", dripHeadAndBody, dripPause, false, null),
                new Slow(
                        "pause past the idle timeout",
                        List.of(bytes(jsonHead), bytes(json.substring(0, 10)), bytes(json.substring(10))),
                        (IDLE_TIMEOUT_SECONDS + 2) * 1000L,
                        false,
                        null)));
        for (int i = 0; i < 30; i++) {
            scenarios.add(new Slow("stalled #" + i, List.of(bytes(jsonHead), bytes("{")), 0, false, null));
        }
        ExecutorService pool = Executors.newFixedThreadPool(scenarios.size());
        try {
            List<Future<String>> results = new ArrayList<>();
            for (Slow s : scenarios) {
                results.add(pool.submit(() -> play(s)));
            }
            // While they all hang on, a normal request is served at once.
            await().atMost(Duration.ofSeconds(IDLE_TIMEOUT_SECONDS - 1L))
                    .untilAsserted(() ->
                            assertEquals(200, sqs.listQueues().sdkHttpResponse().statusCode()));
            List<String> problems = new ArrayList<>();
            for (int i = 0; i < scenarios.size(); i++) {
                String problem = results.get(i).get(60, TimeUnit.SECONDS);
                if (problem != null) {
                    problems.add(scenarios.get(i).name + ": " + problem);
                }
            }
            assertTrue(problems.isEmpty(), String.join("\n", problems));
        } finally {
            pool.shutdownNow();
        }
    }

    /** Plays a scenario; returns what went wrong, or null. */
    private static String play(Slow s) throws IOException, InterruptedException {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", node.port()), 5000);
            socket.setSoTimeout((IDLE_TIMEOUT_SECONDS + 6) * 1000);
            OutputStream out = socket.getOutputStream();
            for (int i = 0; i < s.pieces.size(); i++) {
                if (i > 0 && s.pauseMillis > 0) {
                    Thread.sleep(s.pauseMillis); // the pace of a slow client is what is being tested
                }
                try {
                    out.write(s.pieces.get(i));
                    out.flush();
                } catch (SocketException e) {
                    return s.answerIn == null
                            ? null
                            : "closed while the request was still being sent: " + e.getMessage();
                }
            }
            if (s.halfClose) {
                socket.shutdownOutput();
            }
            InputStream in = socket.getInputStream();
            if (s.answerIn != null) {
                Answer answer;
                try {
                    answer = WireConnection.readAnswer(in, false);
                } catch (SocketTimeoutException e) {
                    return "no answer: the connection hangs";
                } catch (IOException e) {
                    return "no answer: " + e.getMessage();
                }
                FuzzRequest asSent =
                        new FuzzRequest(s.name, new byte[0], FuzzRequest.Body.EMPTY, s.answerIn, false, true);
                String problem = SqsAnswers.problem(asSent, answer);
                if (problem == null && answer.status() != 200) {
                    problem = "refused: " + answer.status() + " " + answer.bodyText();
                }
                return problem;
            }
            // Nothing to answer: the server may say so (never with a 5xx) and must close.
            try {
                byte[] rest = in.readAllBytes();
                String text = new String(rest, StandardCharsets.ISO_8859_1);
                if (text.startsWith("HTTP/1.") && text.length() > 12 && text.charAt(9) == '5') {
                    return "answered " + text.substring(0, text.indexOf('\r') < 0 ? text.length() : text.indexOf('\r'));
                }
                return null;
            } catch (SocketTimeoutException e) {
                return "not closed within " + (IDLE_TIMEOUT_SECONDS + 6) + " s of going silent (idle timeout "
                        + IDLE_TIMEOUT_SECONDS + " s): the connection hangs";
            } catch (SocketException e) {
                return null; // reset: closed
            }
        }
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    // ------------------------------------------------------------------ connection limit

    /**
     * Past --max-connections a new connection is closed before it is read, the ones already open
     * are still served, and once they close the node takes new ones again: nothing leaks.
     */
    @Example
    void connectionsPastTheLimitAreRefusedAndTheCountComesBack() throws Exception {
        int attempts = MAX_CONNECTIONS + 16;
        List<Socket> open = new ArrayList<>();
        int served = 0;
        int refused = 0;
        try {
            for (int i = 0; i < attempts; i++) {
                Socket s = new Socket();
                open.add(s);
                if (healthOn(s)) {
                    served++;
                } else {
                    refused++;
                }
            }
            assertTrue(served <= MAX_CONNECTIONS, "served " + served + " connections, limit " + MAX_CONNECTIONS);
            // Other clients of the node (the SDK's pooled connections, ones closing) take some of the limit.
            assertTrue(
                    served >= MAX_CONNECTIONS / 2, "served only " + served + " connections, limit " + MAX_CONNECTIONS);
            assertTrue(refused >= attempts - MAX_CONNECTIONS, "refused " + refused + " of " + attempts);
            // The connections it took are still served.
            Socket first = open.get(0);
            assertTrue(healthAgain(first), "a connection within the limit is still served");
        } finally {
            for (Socket s : open) {
                s.close();
            }
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> {
            try (Socket s = new Socket()) {
                return healthOn(s);
            }
        });
        List<Socket> again = new ArrayList<>();
        try {
            for (int i = 0; i < MAX_CONNECTIONS / 2; i++) {
                Socket s = new Socket();
                again.add(s);
                assertTrue(healthOn(s), "connection " + i + " after the others closed");
            }
        } finally {
            for (Socket s : again) {
                s.close();
            }
        }
    }

    private static final byte[] HEALTH = bytes("GET /health HTTP/1.1\r\nHost: x\r\n\r\n");

    /** Connects and asks for /health; false when the server closes the connection instead. */
    private static boolean healthOn(Socket s) throws IOException {
        s.connect(new InetSocketAddress("127.0.0.1", node.port()), 5000);
        s.setSoTimeout(10_000);
        return healthAgain(s);
    }

    private static boolean healthAgain(Socket s) throws IOException {
        try {
            s.getOutputStream().write(HEALTH);
            s.getOutputStream().flush();
            Answer a = WireConnection.readAnswer(s.getInputStream(), false);
            assertEquals(200, a.status(), "health: " + a.bodyText());
            return true;
        } catch (ClosedWithoutAnswer | SocketException e) {
            return false;
        }
    }
}
