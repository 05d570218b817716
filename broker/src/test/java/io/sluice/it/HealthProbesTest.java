package io.sluice.it;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The probes of a started node, as Kubernetes calls them (k8s/base/sluice.yaml). */
class HealthProbesTest {

    @RegisterExtension
    static final BrokerExtension broker = new BrokerExtension();

    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private HttpResponse<String> get(String path) throws Exception {
        return http.send(
                HttpRequest.newBuilder(URI.create(broker.baseUrl() + path))
                        .timeout(Duration.ofSeconds(10))
                        .GET()
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void aStartedNodeIsLiveAndReady() throws Exception {
        HttpResponse<String> live = get("/health/live");
        HttpResponse<String> ready = get("/health/ready");
        HttpResponse<String> legacy = get("/health");
        assertAll(
                () -> assertEquals(200, live.statusCode()),
                () -> assertEquals("{\"status\":\"UP\"}", live.body()),
                () -> assertEquals(
                        "application/json",
                        live.headers().firstValue("Content-Type").orElse(null)),
                () -> assertEquals(200, ready.statusCode()),
                () -> assertEquals("{\"status\":\"UP\"}", ready.body()),
                () -> assertEquals(
                        "application/json",
                        ready.headers().firstValue("Content-Type").orElse(null)),
                () -> assertEquals(200, legacy.statusCode()),
                () -> assertEquals("{\"status\":\"UP\"}", legacy.body()));
    }

    @Test
    void probesStayReadyUnderTraffic() throws Exception {
        String url = broker.createQueue("probes");
        for (int i = 0; i < 20; i++) {
            String body = "m" + i;
            broker.sqs().sendMessage(r -> r.queueUrl(url).messageBody(body));
        }
        assertAll(
                () -> assertEquals(200, get("/health/live").statusCode()),
                () -> assertEquals(200, get("/health/ready").statusCode()));
    }

    @Test
    void otherPathsUnderHealthAreSqsRequests() throws Exception {
        // Not a probe: the SQS endpoint answers, with an SQS error (no Action).
        HttpResponse<String> r = get("/healthz");
        assertAll(
                () -> assertEquals(400, r.statusCode()),
                () -> assertTrue(r.body().contains("<ErrorResponse"), r.body()));
    }
}
