package io.sluice.load;

import static io.gatling.javaapi.core.CoreDsl.StringBody;
import static io.gatling.javaapi.core.CoreDsl.asLongAs;
import static io.gatling.javaapi.core.CoreDsl.constantConcurrentUsers;
import static io.gatling.javaapi.core.CoreDsl.doIf;
import static io.gatling.javaapi.core.CoreDsl.exec;
import static io.gatling.javaapi.core.CoreDsl.jsonPath;
import static io.gatling.javaapi.core.CoreDsl.scenario;
import static io.gatling.javaapi.core.CoreDsl.stopLoadGeneratorIf;
import static io.gatling.javaapi.http.HttpDsl.http;
import static io.gatling.javaapi.http.HttpDsl.status;

import io.gatling.javaapi.core.ChainBuilder;
import io.gatling.javaapi.core.ScenarioBuilder;
import io.gatling.javaapi.core.Session;
import io.gatling.javaapi.core.Simulation;
import io.gatling.javaapi.http.HttpProtocolBuilder;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * Pre-fills a queue with {@code prefill} messages (SendMessageBatch of 10, in {@link #before()}, not measured),
 * then {@code users} virtual users loop ReceiveMessage (MaxNumberOfMessages=10, WaitTimeSeconds=0) followed by
 * DeleteMessageBatch of what they got, until {@code duration} seconds have passed or the queue is drained
 * ({@value #EMPTY_RECEIVES_TO_STOP} empty receives in a row for one user stop the whole run, so drained-queue
 * polling does not pollute the figures). Messages/s counts the entries DeleteMessageBatch reported as deleted.
 * With several endpoints ({@code -Dsqs.endpoints=a,b,c}), the queue is created on the first, the pre-fill batches
 * go round-robin to all of them, and each user receives and deletes through one of them (round-robin by user id).
 *
 * <pre>mvn -P load -pl load-tests gatling:test -Dgatling.simulationClass=io.sluice.load.ReceiveDeleteSimulation \
 *     -Dsqs.endpoints=http://127.0.0.1:9324,http://127.0.0.1:9334,http://127.0.0.1:9344 -Dusers=32 -Dduration=30 \
 *     -Dprefill=100000</pre>
 */
public class ReceiveDeleteSimulation extends Simulation {

    private static final int MAX_PREFILL = 1_000_000;
    private static final int PREFILL_THREADS = 4;
    static final int EMPTY_RECEIVES_TO_STOP = 3;

    private final BenchSettings settings = BenchSettings.fromSystemProperties("bench-receive");
    private final int prefill = Integer.getInteger("prefill", 100_000);
    private final RunWindow window = new RunWindow(settings.endpoints().size());
    private volatile String queueUrlJson;
    private volatile String receiveBody;
    private volatile long deadlineNanos;

    private final HttpProtocolBuilder protocol = http
            .baseUrl(settings.endpoint())
            .contentTypeHeader(SqsClient.CONTENT_TYPE)
            // The default warm-up request goes to an outside site; warm up on the broker itself instead.
            .warmUp(settings.endpoint() + "/");

    private final ChainBuilder receiveAndDelete = exec(session -> session.removeAll("handles", "deleted"))
            .exec(http("ReceiveMessage")
                    .post(session -> session.getString(SendSimulation.URL_KEY))
                    .header("X-Amz-Target", "AmazonSQS.ReceiveMessage")
                    .body(StringBody(session -> receiveBody))
                    .check(status().is(200),
                            jsonPath("$.Messages[*].ReceiptHandle").findAll().optional().saveAs("handles")))
            .exec(this::afterReceive)
            .exec(doIf(session -> !session.getString("deleteBody").isEmpty()).then(exec(
                    http("DeleteMessageBatch")
                            .post(session -> session.getString(SendSimulation.URL_KEY))
                            .header("X-Amz-Target", "AmazonSQS.DeleteMessageBatch")
                            .body(StringBody(session -> session.getString("deleteBody")))
                            .check(status().is(200), jsonPath("$.Successful[*].Id").count().saveAs("deleted")))
                    .exec(session -> {
                        window.completed(session.getInt(SendSimulation.ENDPOINT_KEY),
                                session.contains("deleted") ? session.getInt("deleted") : 0);
                        return session.markAsSucceeded();
                    })));

    private final ScenarioBuilder consume = scenario("ReceiveMessage + DeleteMessageBatch loop")
            .exec(session -> {
                // Pinned to one endpoint (round-robin by user id) for all its requests.
                int endpoint = settings.endpointIndex(session.userId());
                window.started(endpoint);
                return session.set(SendSimulation.ENDPOINT_KEY, endpoint)
                        .set(SendSimulation.URL_KEY, settings.endpoints().get(endpoint) + "/")
                        .set("empties", 0).set("deleteBody", "");
            })
            .exec(asLongAs(session -> session.getInt("empties") < EMPTY_RECEIVES_TO_STOP && System.nanoTime() < deadlineNanos)
                    .on(receiveAndDelete))
            .exec(stopLoadGeneratorIf("queue drained", session -> session.getInt("empties") >= EMPTY_RECEIVES_TO_STOP));

    {
        setUp(consume.injectClosed(constantConcurrentUsers(settings.users()).during(settings.duration())))
                .protocols(protocol)
                .maxDuration(settings.duration().plusSeconds(15));
    }

    /** Turns the receipt handles of the last receive into a DeleteMessageBatch body ("" when none). */
    private Session afterReceive(Session session) {
        List<String> handles = session.contains("handles") ? session.getList("handles") : List.of();
        Session s = session.markAsSucceeded();
        if (handles.isEmpty()) {
            return s.set("empties", s.getInt("empties") + 1).set("deleteBody", "");
        }
        StringBuilder b = new StringBuilder(64 + handles.size() * 200);
        b.append("{\"QueueUrl\":\"").append(queueUrlJson).append("\",\"Entries\":[");
        for (int i = 0; i < handles.size(); i++) {
            if (i > 0) {
                b.append(',');
            }
            b.append("{\"Id\":\"d").append(i).append("\",\"ReceiptHandle\":\"").append(Json.escape(handles.get(i)))
                    .append("\"}");
        }
        b.append("]}");
        return s.set("empties", 0).set("deleteBody", b.toString());
    }

    @Override
    public void before() {
        if (prefill < 0 || prefill > MAX_PREFILL) {
            throw new IllegalArgumentException("prefill must be in 0.." + MAX_PREFILL + ", got " + prefill);
        }
        SqsClient client = new SqsClient(settings.endpoint());
        String queueUrl = client.createQueue(settings.queueName());
        List<SqsClient> fillClients = new ArrayList<>();
        for (String endpoint : settings.endpoints()) {
            fillClients.add(new SqsClient(endpoint));
        }
        queueUrlJson = Json.escape(queueUrl);
        receiveBody = "{\"QueueUrl\":\"" + queueUrlJson + "\",\"MaxNumberOfMessages\":10,\"WaitTimeSeconds\":0}";
        long start = System.nanoTime();
        fill(fillClients, queueUrl);
        double secs = (System.nanoTime() - start) / 1e9;
        System.out.printf("ReceiveDeleteSimulation: queue %s pre-filled with %d messages in %.1f s"
                        + " (ApproximateNumberOfMessages=%d); %d users, %d s, endpoints %s%n",
                queueUrl, prefill, secs, client.visibleMessages(queueUrl), settings.users(),
                settings.duration().toSeconds(), settings.endpointList());
        // The users stop one second after the closed injection ends, so the injector never has to replace
        // users that leave at the very end (it would start and end thousands of them in that instant).
        deadlineNanos = System.nanoTime() + settings.duration().plusSeconds(1).toNanos();
    }

    /** SendMessageBatch of 10 from {@value #PREFILL_THREADS} threads; batch i goes to endpoint i mod n. */
    private void fill(List<SqsClient> clients, String queueUrl) {
        String body = settings.messageBody();
        int batches = (prefill + 9) / 10;
        ExecutorService pool = Executors.newFixedThreadPool(PREFILL_THREADS);
        try {
            List<Future<?>> parts = new ArrayList<>();
            for (int t = 0; t < PREFILL_THREADS; t++) {
                int first = t;
                parts.add(pool.submit(() -> {
                    for (int batch = first; batch < batches; batch += PREFILL_THREADS) {
                        clients.get(batch % clients.size())
                                .sendBatch(queueUrl, body, Math.min(10, prefill - batch * 10));
                    }
                }));
            }
            for (Future<?> part : parts) {
                part.get(10, TimeUnit.MINUTES);
            }
        } catch (Exception e) {
            throw new IllegalStateException("pre-fill failed: " + e, e);
        } finally {
            pool.shutdownNow();
        }
    }

    @Override
    public void after() {
        window.report("ReceiveDeleteSimulation", settings);
    }
}
