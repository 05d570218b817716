package io.sluice.load;

import static io.gatling.javaapi.core.CoreDsl.StringBody;
import static io.gatling.javaapi.core.CoreDsl.asLongAs;
import static io.gatling.javaapi.core.CoreDsl.constantConcurrentUsers;
import static io.gatling.javaapi.core.CoreDsl.exec;
import static io.gatling.javaapi.core.CoreDsl.jmesPath;
import static io.gatling.javaapi.core.CoreDsl.scenario;
import static io.gatling.javaapi.http.HttpDsl.http;
import static io.gatling.javaapi.http.HttpDsl.status;

import io.gatling.javaapi.core.ScenarioBuilder;
import io.gatling.javaapi.core.Session;
import io.gatling.javaapi.core.Simulation;
import io.gatling.javaapi.http.HttpProtocolBuilder;

/**
 * Closed model: {@code users} virtual users each send SendMessage back to back (one message per request)
 * until {@code duration} seconds have passed. The queue is created in {@link #before()} on the first endpoint.
 * With several endpoints ({@code -Dsqs.endpoints=a,b,c}), each user sends to one of them, round-robin by user id.
 *
 * <pre>mvn -P load -pl load-tests gatling:test -Dgatling.simulationClass=io.sluice.load.SendSimulation \
 *     -Dsqs.endpoints=http://127.0.0.1:9324,http://127.0.0.1:9334,http://127.0.0.1:9344 -Dusers=32 -Dduration=30</pre>
 */
public class SendSimulation extends Simulation {

    static final String ENDPOINT_KEY = "sqsEndpointIndex";
    static final String URL_KEY = "sqsUrl";

    private final BenchSettings settings = BenchSettings.fromSystemProperties("bench-send");
    private final RunWindow window = new RunWindow(settings.endpoints().size());
    private final String messageBody = settings.messageBody();
    /** Set in before(): the request body names the queue URL the broker gave. */
    private volatile String sendBody;
    private volatile long deadlineNanos;

    private final HttpProtocolBuilder protocol = http
            .baseUrl(settings.endpoint())
            .contentTypeHeader(SqsClient.CONTENT_TYPE)
            // The default warm-up request goes to an outside site; warm up on the broker itself instead.
            .warmUp(settings.endpoint() + "/");

    private final ScenarioBuilder send = scenario("SendMessage loop")
            .exec(this::pin)
            .exec(asLongAs(session -> System.nanoTime() < deadlineNanos).on(exec(
                    http("SendMessage")
                            .post(session -> session.getString(URL_KEY))
                            .header("X-Amz-Target", "AmazonSQS.SendMessage")
                            .body(StringBody(session -> sendBody))
                            .check(status().is(200), jmesPath("MessageId").exists()))
                    .exec(session -> {
                        window.completed(session.getInt(ENDPOINT_KEY), session.isFailed() ? 0 : 1);
                        return session.markAsSucceeded();
                    })));

    {
        setUp(send.injectClosed(constantConcurrentUsers(settings.users()).during(settings.duration())))
                .protocols(protocol)
                .maxDuration(settings.duration().plusSeconds(15));
    }

    /** Pins the user to its endpoint (round-robin by user id); its requests go to that endpoint only. */
    private Session pin(Session session) {
        int endpoint = settings.endpointIndex(session.userId());
        window.started(endpoint);
        return session.set(ENDPOINT_KEY, endpoint).set(URL_KEY, settings.endpoints().get(endpoint) + "/");
    }

    @Override
    public void before() {
        SqsClient client = new SqsClient(settings.endpoint());
        String queueUrl = client.createQueue(settings.queueName());
        sendBody = "{\"QueueUrl\":\"" + Json.escape(queueUrl) + "\",\"MessageBody\":\"" + messageBody + "\"}";
        System.out.println("SendSimulation: queue " + queueUrl + ", " + settings.users() + " users, "
                + settings.duration().toSeconds() + " s, endpoints " + settings.endpointList());
        // The users stop one second after the closed injection ends, so the injector never has to replace
        // users that leave at the very end (it would start and end thousands of them in that instant).
        deadlineNanos = System.nanoTime() + settings.duration().plusSeconds(1).toNanos();
    }

    @Override
    public void after() {
        window.report("SendSimulation", settings);
    }
}
