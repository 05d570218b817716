package io.sluice.load;

import static io.gatling.javaapi.core.CoreDsl.StringBody;
import static io.gatling.javaapi.core.CoreDsl.asLongAs;
import static io.gatling.javaapi.core.CoreDsl.atOnceUsers;
import static io.gatling.javaapi.core.CoreDsl.bodyString;
import static io.gatling.javaapi.core.CoreDsl.constantConcurrentUsers;
import static io.gatling.javaapi.core.CoreDsl.constantUsersPerSec;
import static io.gatling.javaapi.core.CoreDsl.doIf;
import static io.gatling.javaapi.core.CoreDsl.exec;
import static io.gatling.javaapi.core.CoreDsl.nothingFor;
import static io.gatling.javaapi.core.CoreDsl.pause;
import static io.gatling.javaapi.core.CoreDsl.scenario;
import static io.gatling.javaapi.core.CoreDsl.stopLoadGeneratorIf;
import static io.gatling.javaapi.http.HttpDsl.http;
import static io.gatling.javaapi.http.HttpDsl.status;

import io.gatling.javaapi.core.ChainBuilder;
import io.gatling.javaapi.core.PopulationBuilder;
import io.gatling.javaapi.core.Session;
import io.gatling.javaapi.core.Simulation;
import io.gatling.javaapi.http.HttpProtocolBuilder;
import io.gatling.javaapi.http.HttpRequestActionBuilder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Every workload of the benchmark, over either protocol ({@code -Dprotocol=json|query}), chosen by
 * {@code -Dworkload=...}:
 *
 * <ul>
 *   <li>{@code send}: {@code users} users (closed model) loop SendMessage, one message per request, for
 *       {@code duration} s. Messages = SendMessage answered with a MessageId.</li>
 *   <li>{@code batch}: the same with SendMessageBatch of 10 entries. Messages = entries answered as Successful.</li>
 *   <li>{@code recvdel}: {@code prefill} messages are stored first (SendMessageBatch, not measured), then
 *       {@code users} users loop ReceiveMessage (MaxNumberOfMessages=10, WaitTimeSeconds=0) and DeleteMessageBatch of
 *       what they got, until {@code duration} s have passed or the queue is drained (3 empty receives in a row for
 *       one user stop the run). Messages = entries DeleteMessageBatch answered as Successful.</li>
 *   <li>{@code fifo}: a FIFO queue; {@code groups} producers, one per message group, each sending SendMessage
 *       sequentially (the next only after the previous was answered) for {@code duration} s, while {@code consumers}
 *       users loop ReceiveMessage (10, WaitTimeSeconds=1) and DeleteMessageBatch, and afterwards drain the queue
 *       (at most 15 s). Messages = deleted; each message carries its group's sequence number, and a message received
 *       after a later one of its group counts as an order violation, one received twice as a duplicate.</li>
 *   <li>{@code e2e}: a steady producer, {@code rate} SendMessage/s (open model, one message per Gatling user), for
 *       {@code e2eWarmup} + {@code duration} s, each body starting with the client's {@code System.nanoTime()} at sending; {@code consumers}
 *       users long-poll (ReceiveMessage, 10, WaitTimeSeconds=20) and delete. The latency of a message is the time from
 *       building its SendMessage to the arrival of the ReceiveMessage reply that carries it (same JVM, so one clock);
 *       p50/p90/p99/p99.9/max are over the messages sent after the first {@code e2eWarmup} s (default 10): the
 *       Gatling JVM starts cold for every run, and in its first seconds at 1,000 msg/s its consumers sent no
 *       ReceiveMessage for about 5 s while the broker held no parked poll and the queue filled. The warm-up's
 *       messages are received, deleted and counted in sent/received/lost like the others. After the producer stops the consumers drain the queue (at most
 *       15 s), then a waker sends a few "wake" messages so that no consumer sits out its 20 s long poll.
 *       lost = sent - received. Messages (and so CPU µs per message) count the deleted messages, the few wake
 *       messages included.</li>
 *   <li>{@code warmup}: everything at once for {@code duration} s over both protocols, at a few users each:
 *       SendMessage, SendMessageBatch, ReceiveMessage (WaitTimeSeconds=1) + DeleteMessageBatch, FIFO send and
 *       receive + delete. Not measured.</li>
 *   <li>{@code fill}: stores {@code prefill} messages of {@code messageSize} bytes with SendMessageBatch (4 client
 *       threads), waits until ApproximateNumberOfMessages shows them all, and keeps the queue (the script's memory
 *       mode then measures the broker's heap).</li>
 * </ul>
 *
 * {@code send}, {@code batch}, {@code recvdel} and {@code fifo} first warm up this (cold) JVM for {@code clientWarmup}
 * seconds on queues of their own, unmeasured ({@link #clientWarmup()}). The server CPU of the run (utime + stime of
 * {@code -Dbench.serverPids}) and this JVM's own are counted from the first measured user's start to the end of the
 * run; the figures go to stdout and to {@code -Dbench.out} (a properties file). The queues the run
 * created are deleted at the end unless {@code -Dsqs.keepQueue=true} (default for {@code fill}).
 *
 * <pre>mvn -B -P load -pl load-tests test-compile io.gatling:gatling-maven-plugin:4.21.12:test \
 *     -Dgatling.simulationClass=io.sluice.load.SqsSimulation -Dworkload=send -Dprotocol=query \
 *     -Dsqs.endpoint=http://127.0.0.1:9324 -Dusers=32 -Dduration=30</pre>
 */
public class SqsSimulation extends Simulation {

    static final String ENDPOINT_KEY = "sqsEndpointIndex";
    static final String URL_KEY = "sqsUrl";
    static final String REPLY_KEY = "sqsReply";
    static final String DELETE_KEY = "sqsDeleteBody";
    static final String EMPTIES_KEY = "sqsEmpties";
    static final String GROUP_KEY = "sqsGroup";
    static final String SEQ_KEY = "sqsSeq";
    static final String WAKES_KEY = "sqsWakes";
    static final int EMPTY_RECEIVES_TO_STOP = 3;
    private static final Duration GRACE = Duration.ofSeconds(1);
    private static final Duration DRAIN = Duration.ofSeconds(15);
    private static final int FILL_THREADS = 4;
    private static final int MAX_WAKES = 400;
    private static final int WARMUP_USERS = 8;

    private final BenchSettings settings = BenchSettings.fromSystemProperties();
    private final SqsProtocol protocol = settings.protocol();
    /** What the measured window counts. */
    private final RunStats measuredStats = new RunStats(
            settings.endpoints().size(),
            ProcessCpu.servers(),
            ProcessCpu.client(),
            settings.workload() == BenchSettings.Workload.E2E
                    ? (int) Math.min(
                            5_000_000L,
                            (long) settings.rate() * (settings.duration().toSeconds() + 20))
                    : 0,
            settings.wantsLatencyTimeline());
    /**
     * Where the chains count: a RunStats nobody reads (the client warm-up's) until the first measured user switches
     * it to {@link #measuredStats} in {@link #startMeasuring()}; so {@code stats == measuredStats} also says that
     * the measured window has started.
     */
    private volatile RunStats stats =
            new RunStats(settings.endpoints().size(), ProcessCpu.none(), ProcessCpu.none(), 0, false);

    /**
     * The first endpoint's forwarded requests when the measured window started (-1: not a Sluice node, or not read):
     * a send stays on the node that took it when that node owns any of the queue's partitions, which Hazelcast
     * places by the queue's name, so a three-node run says how many of its requests node 1 forwarded.
     */
    private volatile long forwardedAtStart = -1;

    private final String runId = Long.toString(System.currentTimeMillis(), 36);
    private final String plainBody = settings.messageBody("");
    private final AtomicInteger groupCounter = new AtomicInteger();
    private final AtomicInteger activeConsumers = new AtomicInteger();
    private final AtomicLongArray lastSeqByGroup = new AtomicLongArray(Math.max(settings.groups(), 2));
    private final SqsClient admin = new SqsClient(settings.endpoint());
    /** The queues, set in before() (the chains are built earlier, in the constructor, and read them at run time). */
    private volatile String queueUrl;

    private volatile String fifoQueueUrl;
    /** The client warm-up's queues (standard and FIFO), apart from the measured ones. */
    private volatile String warmupQueueUrl;

    private volatile String warmupFifoQueueUrl;
    /** The client warm-up ends here; the measured window starts when it has. */
    private volatile long warmupEndNanos;
    /** Producers and closed-model loops stop here; consumers then drain until {@link #drainEndNanos}. */
    private volatile long productionEndNanos;

    private volatile long drainEndNanos;
    /** e2e: messages built before this are the client's warm-up; their latency is not recorded. */
    private volatile long measureFromNanos;
    /** recvdel, fill: how long storing the messages took (not part of the measured window). */
    private volatile double fillSeconds;

    private final HttpProtocolBuilder httpProtocol = http.baseUrl(settings.endpoint())
            // One pool for all users: the e2e producer starts a user per message, which must not mean a connection
            // each.
            .shareConnections()
            // ... bounded: past this many busy connections, requests wait for one (the wait counts in their latency)
            // instead of opening ever more connections to an overloaded broker until connects time out.
            .maxConnectionsPerHost(Math.max(64, settings.users() + settings.consumers() + settings.groups() + 8))
            // The default warm-up request goes to an outside site; warm up on the broker itself instead.
            .warmUp(settings.endpoint() + "/");

    {
        Duration d = settings.duration();
        List<PopulationBuilder> populations = new ArrayList<>();
        Duration maxDuration = d.plusSeconds(15);
        switch (settings.workload()) {
            case SEND -> populations.add(closedLoop("SendMessage loop", send(protocol, () -> queueUrl)));
            case BATCH -> populations.add(closedLoop("SendMessageBatch loop", batch(protocol, () -> queueUrl)));
            case RECVDEL ->
                populations.add(scenario("ReceiveMessage + DeleteMessageBatch loop")
                        .exec(this::pin)
                        .exec(session -> session.set(EMPTIES_KEY, 0))
                        .exec(asLongAs(session ->
                                        session.getInt(EMPTIES_KEY) < EMPTY_RECEIVES_TO_STOP && beforeProductionEnd())
                                .on(receiveDelete(protocol, () -> queueUrl, 0, this::countReceived)))
                        .exec(stopLoadGeneratorIf(
                                "queue drained", session -> session.getInt(EMPTIES_KEY) >= EMPTY_RECEIVES_TO_STOP))
                        .injectClosed(constantConcurrentUsers(settings.users()).during(d)));
            case FIFO -> {
                populations.add(scenario("FIFO producers, one per group")
                        .exec(this::pin)
                        .exec(this::joinGroup)
                        .exec(asLongAs(session -> beforeProductionEnd()).on(fifoSend(protocol, () -> fifoQueueUrl)))
                        .injectOpen(atOnceUsers(settings.groups())));
                populations.add(consumers("FIFO consumers", protocol, () -> fifoQueueUrl, 1, this::checkFifoOrder));
                maxDuration = d.plus(GRACE).plus(DRAIN).plusSeconds(25);
            }
            case E2E -> {
                populations.add(scenario("e2e producer, " + settings.rate() + " msg/s")
                        .exec(this::pin)
                        .exec(timestampedSend(protocol))
                        .injectOpen(constantUsersPerSec(settings.rate()).during(d.plus(settings.e2eWarmup()))));
                populations.add(
                        consumers("e2e long-polling consumers", protocol, () -> queueUrl, 20, this::recordLatencies));
                populations.add(scenario("e2e waker")
                        .exec(session ->
                                session.set(URL_KEY, settings.endpoint() + "/").set(WAKES_KEY, 0))
                        .exec(asLongAs(session -> activeConsumers.get() > 0 && session.getInt(WAKES_KEY) < MAX_WAKES)
                                .on(exec(request(
                                                protocol,
                                                "SendMessage",
                                                "SendMessage (wake)",
                                                session -> protocol.body(
                                                        "SendMessage",
                                                        Map.of("QueueUrl", queueUrl, "MessageBody", "wake"))))
                                        .exec(session -> done(session).set(WAKES_KEY, session.getInt(WAKES_KEY) + 1))
                                        .exec(pause(Duration.ofMillis(50)))))
                        .injectOpen(nothingFor(d.plus(settings.e2eWarmup()).plus(GRACE)), atOnceUsers(1)));
                maxDuration =
                        d.plus(settings.e2eWarmup()).plus(GRACE).plus(DRAIN).plusSeconds(25);
            }
            case WARMUP -> {
                for (SqsProtocol p : SqsProtocol.values()) {
                    String tag = " (" + p.shortName() + ")";
                    populations.add(closedLoopAtOnce("warm-up send" + tag, send(p, () -> queueUrl), 2));
                    populations.add(closedLoopAtOnce("warm-up batch" + tag, batch(p, () -> queueUrl), 1));
                    populations.add(closedLoopAtOnce(
                            "warm-up receive+delete" + tag,
                            receiveDelete(p, () -> queueUrl, 1, this::countReceived),
                            2));
                    populations.add(scenario("warm-up FIFO send" + tag)
                            .exec(this::pin)
                            .exec(this::joinGroup)
                            .exec(asLongAs(session -> beforeProductionEnd()).on(fifoSend(p, () -> fifoQueueUrl)))
                            .injectOpen(atOnceUsers(2)));
                    populations.add(closedLoopAtOnce(
                            "warm-up FIFO receive+delete" + tag,
                            receiveDelete(p, () -> fifoQueueUrl, 1, this::countReceived),
                            1));
                }
                maxDuration = d.plusSeconds(10);
            }
            case FILL ->
                populations.add(scenario("GetQueueAttributes after the fill")
                        .exec(this::pin)
                        .exec(request(
                                protocol,
                                "GetQueueAttributes",
                                "GetQueueAttributes",
                                session -> protocol.body(
                                        "GetQueueAttributes",
                                        Map.of(
                                                "QueueUrl",
                                                queueUrl,
                                                "AttributeNames",
                                                List.of("ApproximateNumberOfMessages")))))
                        .exec(this::done)
                        .injectOpen(atOnceUsers(1)));
        }
        if (settings.warmsUpClient()) {
            populations = List.of(clientWarmup().andThen(populations));
            maxDuration = maxDuration.plus(settings.clientWarmup()).plusSeconds(10);
        }
        setUp(populations).protocols(httpProtocol).maxDuration(maxDuration);
    }

    // ---- building blocks ----

    /** One SQS request: POST to the user's endpoint, 200 expected, the reply body kept for the next step. */
    private HttpRequestActionBuilder request(
            SqsProtocol p, String action, String name, Function<Session, String> body) {
        HttpRequestActionBuilder r = http(name)
                .post(session -> session.getString(URL_KEY))
                .header("Content-Type", p.contentType())
                .body(StringBody(body))
                .check(status().is(200), bodyString().saveAs(REPLY_KEY));
        String target = p.target(action);
        return target == null ? r : r.header("X-Amz-Target", target);
    }

    /** The reply of the last request, or null if it failed (status, connection, unreadable body). */
    private Reply reply(Session session, SqsProtocol p) {
        if (session.isFailed() || !session.contains(REPLY_KEY)) {
            return null;
        }
        try {
            return p.reply(session.getString(REPLY_KEY));
        } catch (RuntimeException e) {
            return null;
        }
    }

    /** Clears the last reply and the failed flag, so that the next request is judged on its own. */
    private Session done(Session session) {
        return session.remove(REPLY_KEY).markAsSucceeded();
    }

    /**
     * A measured user starts: pinned to its endpoint; the first one starts the measured window. A user that starts
     * in the same instant waits on the lock, so none reads the window's deadlines before they are set.
     */
    private Session pin(Session session) {
        if (stats != measuredStats) {
            synchronized (this) {
                if (stats != measuredStats) {
                    startMeasuring();
                }
            }
        }
        stats.started(settings.endpointIndex(session.userId()));
        return pinWarmup(session);
    }

    /** A client warm-up user starts: pinned to its endpoint, counted nowhere. */
    private Session pinWarmup(Session session) {
        int endpoint = settings.endpointIndex(session.userId());
        return session.set(ENDPOINT_KEY, endpoint)
                .set(URL_KEY, settings.endpoints().get(endpoint) + "/");
    }

    /**
     * The measured window starts (the first measured user, after the client warm-up if there was one): counts go to
     * {@link #measuredStats}, FIFO groups are handed out afresh, and the window's deadlines count from now. Switching
     * {@link #stats} comes last: a user that sees it switched sees the deadlines too (volatile).
     */
    private void startMeasuring() {
        forwardedAtStart = admin.forwardedRequests();
        groupCounter.set(0);
        for (int i = 0; i < lastSeqByGroup.length(); i++) {
            lastSeqByGroup.set(i, 0);
        }
        // The closed-model users stop one second after the injection ends, so the injector never has to replace
        // users that leave at the very end (it would start and end thousands of them in that instant).
        long now = System.nanoTime();
        boolean e2e = settings.workload() == BenchSettings.Workload.E2E;
        measureFromNanos = now + (e2e ? settings.e2eWarmup().toNanos() : 0);
        productionEndNanos =
                measureFromNanos + settings.duration().plusSeconds(e2e ? 0 : 1).toNanos();
        drainEndNanos = productionEndNanos + GRACE.toNanos() + DRAIN.toNanos();
        stats = measuredStats;
    }

    /**
     * The client warm-up: this JVM starts cold for every run, and on a machine it shares with the broker its JIT
     * compiler would otherwise take CPU from the broker inside the measured window (a profile of the client 30 s
     * into a run still showed C2 in 22 % of its samples). {@value #WARMUP_USERS} users loop every request of the
     * benchmark over this run's protocol (SendMessage, SendMessageBatch, ReceiveMessage + DeleteMessageBatch, twice
     * per SendMessageBatch so the queue stays short, FIFO SendMessage, FIFO ReceiveMessage + DeleteMessageBatch) on
     * queues of their own for {@code clientWarmup} seconds. Nothing of it is counted.
     */
    private PopulationBuilder clientWarmup() {
        ChainBuilder round = exec(send(protocol, () -> warmupQueueUrl))
                .exec(batch(protocol, () -> warmupQueueUrl))
                .exec(receiveDelete(protocol, () -> warmupQueueUrl, 0, this::countReceived))
                .exec(receiveDelete(protocol, () -> warmupQueueUrl, 0, this::countReceived))
                .exec(fifoSend(protocol, () -> warmupFifoQueueUrl))
                .exec(receiveDelete(protocol, () -> warmupFifoQueueUrl, 0, this::countReceived));
        return scenario("client warm-up (" + protocol.shortName() + ")")
                .exec(this::pinWarmup)
                .exec(this::joinGroup)
                .exec(asLongAs(session -> System.nanoTime() < warmupEndNanos).on(round))
                .injectOpen(atOnceUsers(WARMUP_USERS));
    }

    private Session joinGroup(Session session) {
        return session.set(GROUP_KEY, groupCounter.getAndIncrement() % lastSeqByGroup.length())
                .set(SEQ_KEY, 0L);
    }

    private boolean beforeProductionEnd() {
        return System.nanoTime() < productionEndNanos;
    }

    /** {@code users} users, started within the run's duration (closed model), each looping {@code body} to the end. */
    private PopulationBuilder closedLoop(String name, ChainBuilder body) {
        return scenario(name)
                .exec(this::pin)
                .exec(asLongAs(session -> beforeProductionEnd()).on(body))
                .injectClosed(constantConcurrentUsers(settings.users()).during(settings.duration()));
    }

    private PopulationBuilder closedLoopAtOnce(String name, ChainBuilder body, int users) {
        return scenario(name)
                .exec(this::pin)
                .exec(asLongAs(session -> beforeProductionEnd()).on(body))
                .injectOpen(atOnceUsers(users));
    }

    private ChainBuilder send(SqsProtocol p, Supplier<String> queue) {
        return exec(request(
                        p,
                        "SendMessage",
                        "SendMessage",
                        session -> p.body("SendMessage", Map.of("QueueUrl", queue.get(), "MessageBody", plainBody))))
                .exec(session -> {
                    Reply r = reply(session, p);
                    if (r != null && r.text("MessageId") != null) {
                        stats.completed(session.getInt(ENDPOINT_KEY), 1);
                    } else {
                        stats.failure(1);
                    }
                    return done(session);
                });
    }

    private ChainBuilder batch(SqsProtocol p, Supplier<String> queue) {
        return exec(request(
                        p,
                        "SendMessageBatch",
                        "SendMessageBatch",
                        session -> p.body(
                                "SendMessageBatch",
                                Map.of("QueueUrl", queue.get(), "Entries", SqsClient.batchEntries(plainBody, 10)))))
                .exec(session -> countBatch(session, p, 10));
    }

    /** Counts a batch reply's successful and failed entries; a request that got no reply counts {@code lost} failures. */
    private Session countBatch(Session session, SqsProtocol p, int lost) {
        Reply r = reply(session, p);
        if (r != null) {
            stats.completed(session.getInt(ENDPOINT_KEY), r.successful());
            stats.failure(r.failed());
        } else {
            stats.failure(lost);
        }
        return done(session);
    }

    /** SendMessage to a FIFO queue: group {@code g<group>}, the next sequence number; the sequence advances on success. */
    private ChainBuilder fifoSend(SqsProtocol p, Supplier<String> queue) {
        return exec(request(p, "SendMessage", "SendMessage (FIFO)", session -> {
                    int group = session.getInt(GROUP_KEY);
                    long seq = session.getLong(SEQ_KEY);
                    Map<String, Object> m = new LinkedHashMap<>();
                    m.put("QueueUrl", queue.get());
                    m.put("MessageBody", settings.messageBody(group + ":" + seq + ":"));
                    m.put("MessageGroupId", "g" + group);
                    m.put("MessageDeduplicationId", runId + "-" + group + "-" + seq);
                    return p.body("SendMessage", m);
                }))
                .exec(session -> {
                    Reply r = reply(session, p);
                    if (r != null && r.text("MessageId") != null) {
                        stats.sent(1);
                        // A failed send is sent again with the same sequence number and deduplication id.
                        return done(session).set(SEQ_KEY, session.getLong(SEQ_KEY) + 1);
                    }
                    stats.failure(1);
                    return done(session);
                });
    }

    /** SendMessage whose body starts with {@code t<nanoTime>} taken when the request is built. */
    private ChainBuilder timestampedSend(SqsProtocol p) {
        return exec(request(
                        p,
                        "SendMessage",
                        "SendMessage",
                        session -> p.body(
                                "SendMessage",
                                Map.of(
                                        "QueueUrl",
                                        queueUrl,
                                        "MessageBody",
                                        settings.messageBody("t" + System.nanoTime() + " ")))))
                .exec(session -> {
                    Reply r = reply(session, p);
                    if (r != null && r.text("MessageId") != null) {
                        stats.sent(1);
                    } else {
                        stats.failure(1);
                    }
                    return done(session);
                });
    }

    /** What a consumer does with the messages of one ReceiveMessage reply. */
    @FunctionalInterface
    private interface OnReceive {
        void accept(List<Reply.Message> messages, long arrivalNanos);
    }

    /**
     * ReceiveMessage (MaxNumberOfMessages=10, WaitTimeSeconds={@code wait}), then DeleteMessageBatch of what came
     * (if anything); counts empty receives in a row under {@link #EMPTIES_KEY}.
     */
    private ChainBuilder receiveDelete(SqsProtocol p, Supplier<String> queue, int wait, OnReceive onReceive) {
        return exec(request(
                        p,
                        "ReceiveMessage",
                        "ReceiveMessage",
                        session -> p.body(
                                "ReceiveMessage",
                                Map.of("QueueUrl", queue.get(), "MaxNumberOfMessages", 10, "WaitTimeSeconds", wait))))
                .exec(session -> {
                    long arrival = System.nanoTime();
                    Reply r = reply(session, p);
                    int empties = session.contains(EMPTIES_KEY) ? session.getInt(EMPTIES_KEY) : 0;
                    if (r == null) {
                        stats.failure(1);
                        return done(session).set(DELETE_KEY, "");
                    }
                    List<Reply.Message> messages = r.messages();
                    if (messages.isEmpty()) {
                        return done(session).set(DELETE_KEY, "").set(EMPTIES_KEY, empties + 1);
                    }
                    onReceive.accept(messages, arrival);
                    List<Map<String, String>> entries = new ArrayList<>(messages.size());
                    for (int i = 0; i < messages.size(); i++) {
                        entries.add(Map.of(
                                "Id", "d" + i, "ReceiptHandle", messages.get(i).receiptHandle()));
                    }
                    return done(session)
                            .set(EMPTIES_KEY, 0)
                            .set(
                                    DELETE_KEY,
                                    p.body("DeleteMessageBatch", Map.of("QueueUrl", queue.get(), "Entries", entries)));
                })
                .exec(doIf(session -> !session.getString(DELETE_KEY).isEmpty())
                        .then(exec(request(
                                        p,
                                        "DeleteMessageBatch",
                                        "DeleteMessageBatch",
                                        session -> session.getString(DELETE_KEY)))
                                .exec(session -> countBatch(session, p, 1))));
    }

    /**
     * {@code consumers} users that receive and delete while the producers run and then drain what was sent (for at
     * most {@link #DRAIN}). While one of them is active, {@link #activeConsumers} is above zero (the e2e waker).
     */
    private PopulationBuilder consumers(
            String name, SqsProtocol p, Supplier<String> queue, int wait, OnReceive onReceive) {
        return scenario(name)
                .exec(this::pin)
                .exec(session -> {
                    activeConsumers.incrementAndGet();
                    return session;
                })
                .exec(asLongAs(session -> {
                            long now = System.nanoTime();
                            return now < productionEndNanos + GRACE.toNanos()
                                    || (now < drainEndNanos && stats.received() < stats.sent());
                        })
                        .on(receiveDelete(p, queue, wait, onReceive)))
                .exec(session -> {
                    activeConsumers.decrementAndGet();
                    return session;
                })
                .injectOpen(atOnceUsers(settings.consumers()));
    }

    private void countReceived(List<Reply.Message> messages, long arrivalNanos) {
        stats.received(messages.size());
    }

    /** e2e: the latency of every timestamped message ({@code t<nanoTime> ...}); wake messages are skipped. */
    private void recordLatencies(List<Reply.Message> messages, long arrivalNanos) {
        for (Reply.Message m : messages) {
            String body = m.body();
            int space = body.indexOf(' ');
            if (body.startsWith("t") && space > 1) {
                try {
                    long sentNanos = Long.parseLong(body.substring(1, space));
                    if (sentNanos - measureFromNanos >= 0) {
                        stats.latency(arrivalNanos - sentNanos);
                    }
                    stats.received(1);
                } catch (NumberFormatException e) {
                    stats.failure(1);
                }
            }
        }
    }

    /** fifo: within a group, sequence numbers must arrive in increasing order, each once. */
    private void checkFifoOrder(List<Reply.Message> messages, long arrivalNanos) {
        for (Reply.Message m : messages) {
            String[] parts = m.body().split(":", 3);
            try {
                int group = Integer.parseInt(parts[0]);
                long seq = Long.parseLong(parts[1]);
                long previous = lastSeqByGroup.getAndAccumulate(group, seq + 1, Math::max) - 1;
                if (seq == previous) {
                    stats.duplicate();
                } else if (seq < previous) {
                    stats.orderViolation();
                } else {
                    stats.received(1);
                }
            } catch (RuntimeException e) {
                stats.failure(1);
            }
        }
    }

    // ---- set-up and report ----

    @Override
    public void before() {
        switch (settings.workload()) {
            case FIFO -> fifoQueueUrl = admin.createQueue(settings.queueName() + ".fifo", Map.of("FifoQueue", "true"));
            case WARMUP -> {
                queueUrl = admin.createQueue(settings.queueName(), Map.of());
                fifoQueueUrl = admin.createQueue(settings.queueName() + ".fifo", Map.of("FifoQueue", "true"));
            }
            default -> queueUrl = admin.createQueue(settings.queueName(), Map.of());
        }
        if (settings.warmsUpClient()) {
            warmupQueueUrl = admin.createQueue(settings.queueName() + "-cw", Map.of());
            warmupFifoQueueUrl = admin.createQueue(settings.queueName() + "-cw.fifo", Map.of("FifoQueue", "true"));
        }
        if (settings.workload() == BenchSettings.Workload.RECVDEL
                || settings.workload() == BenchSettings.Workload.FILL) {
            long start = System.nanoTime();
            fill(queueUrl, settings.prefill());
            double secs = (System.nanoTime() - start) / 1e9;
            fillSeconds = secs;
            long visible = admin.visibleMessages(queueUrl);
            // ApproximateNumberOfMessages may lag the sends (a cluster sums its partitions' counts): wait, bounded.
            for (int i = 0; i < 120 && visible != settings.prefill(); i++) {
                sleep(500);
                visible = admin.visibleMessages(queueUrl);
            }
            System.out.printf(
                    "SqsSimulation: queue %s filled with %d messages of %d bytes in %.1f s (%.0f msg/s);"
                            + " ApproximateNumberOfMessages=%d%n",
                    queueUrl,
                    settings.prefill(),
                    settings.messageSize(),
                    secs,
                    secs > 0 ? settings.prefill() / secs : 0.0,
                    visible);
        }
        System.out.printf(
                "SqsSimulation: workload %s, protocol %s, queue %s, %d users, %d s, endpoints %s%n",
                settings.workload().shortName(),
                protocol.shortName(),
                queueUrl != null ? queueUrl : fifoQueueUrl,
                settings.users(),
                settings.duration().toSeconds(),
                settings.endpointList());
        if (settings.warmsUpClient()) {
            System.out.printf(
                    "SqsSimulation: the client warms up for %d s first (not measured)%n",
                    settings.clientWarmup().toSeconds());
        }
        warmupEndNanos = System.nanoTime() + settings.clientWarmup().toNanos();
    }

    /** SendMessageBatch of 10 from {@value #FILL_THREADS} threads; batch i goes to endpoint i mod n. */
    private void fill(String queue, int count) {
        List<SqsClient> clients = new ArrayList<>();
        for (String endpoint : settings.endpoints()) {
            clients.add(new SqsClient(endpoint));
        }
        int batches = (count + 9) / 10;
        ExecutorService pool = Executors.newFixedThreadPool(FILL_THREADS);
        try {
            List<Future<?>> parts = new ArrayList<>();
            for (int t = 0; t < FILL_THREADS; t++) {
                int first = t;
                parts.add(pool.submit(() -> {
                    for (int batch = first; batch < batches; batch += FILL_THREADS) {
                        clients.get(batch % clients.size())
                                .sendBatch(queue, plainBody, Math.min(10, count - batch * 10));
                    }
                }));
            }
            for (Future<?> part : parts) {
                part.get(30, TimeUnit.MINUTES);
            }
        } catch (Exception e) {
            throw new IllegalStateException("fill failed: " + e, e);
        } finally {
            pool.shutdownNow();
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    @Override
    public void after() {
        Map<String, Object> extra = new LinkedHashMap<>();
        long forwardedAtEnd = admin.forwardedRequests();
        if (forwardedAtStart >= 0 && forwardedAtEnd >= 0) {
            extra.put("forwardedByNode1", forwardedAtEnd - forwardedAtStart);
        }
        switch (settings.workload()) {
            case E2E -> {
                extra.put("rate", settings.rate());
                extra.put("consumers", settings.consumers());
                extra.put("lost", Math.max(0, stats.sent() - stats.received()));
            }
            case FIFO -> {
                extra.put("groups", settings.groups());
                extra.put("consumers", settings.consumers());
                extra.put("lost", Math.max(0, stats.sent() - stats.received()));
            }
            case RECVDEL, FILL -> {
                extra.put("prefill", settings.prefill());
                extra.put("fillSeconds", String.format(Locale.ROOT, "%.1f", fillSeconds));
                extra.put(
                        "fillMessagesPerSecond",
                        String.format(Locale.ROOT, "%.0f", fillSeconds > 0 ? settings.prefill() / fillSeconds : 0.0));
            }
            default -> {}
        }
        if (settings.workload() == BenchSettings.Workload.FILL && queueUrl != null) {
            extra.put("queueUrl", queueUrl);
        }
        measuredStats.report(settings, extra);
        if (!settings.keepQueue()) {
            for (String url : new String[] {queueUrl, fifoQueueUrl, warmupQueueUrl, warmupFifoQueueUrl}) {
                if (url != null) {
                    try {
                        admin.deleteQueue(url);
                    } catch (RuntimeException e) {
                        System.err.println("SqsSimulation: could not delete " + url + ": " + e.getMessage());
                    }
                }
            }
        }
    }
}
