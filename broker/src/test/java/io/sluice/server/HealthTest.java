package io.sluice.server;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The probes over real HTTP, with the readiness inputs under the test's control: every state a
 * node can be in (not ready yet, ready, ready no longer, paused, stopping), what each path answers
 * and the reason a 503 gives.
 * The probes of a whole running node are checked in io.sluice.it.HealthProbesTest and
 * io.sluice.cluster.ReadinessTest.
 */
class HealthTest {
    private final AtomicBoolean paused = new AtomicBoolean();
    private final AtomicBoolean backups = new AtomicBoolean();
    private final AtomicBoolean inputsReady = new AtomicBoolean();
    private final Health health = new Health(paused::get, backups::get, inputsReady::get);
    private final HttpClient http = HttpClient.newHttpClient();
    private Vertx vertx;
    private int port;

    @BeforeEach
    void listen() throws Exception {
        vertx = Vertx.vertx();
        HttpServer server = vertx.createHttpServer().requestHandler(req -> {
            if (Health.isProbe(req.path())) {
                health.respond(req);
            } else {
                req.response().setStatusCode(418).end();
            }
        });
        port = server.listen(0, "127.0.0.1")
                .toCompletionStage()
                .toCompletableFuture()
                .get(30, TimeUnit.SECONDS)
                .actualPort();
    }

    @AfterEach
    void close() throws Exception {
        vertx.close().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
    }

    private HttpResponse<String> get(String path) throws Exception {
        return http.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                        .GET()
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private void assertAnswer(String path, int status, String body) throws Exception {
        HttpResponse<String> r = get(path);
        assertAll(
                path,
                () -> assertEquals(status, r.statusCode(), "status"),
                () -> assertEquals(body, r.body(), "body"),
                () -> assertEquals(
                        "application/json",
                        r.headers().firstValue("Content-Type").orElse(null)));
    }

    @Test
    void liveIsUpWhateverTheReadinessAndReadyFollowsIt() throws Exception {
        assertAnswer("/health/live", 200, "{\"status\":\"UP\"}");
        assertAnswer("/health/ready", 503, "{\"status\":\"DOWN\",\"reason\":\"backups\"}");
        assertAnswer("/health", 503, "{\"status\":\"DOWN\",\"reason\":\"backups\"}");

        backups.set(true);
        assertAnswer("/health/ready", 503, "{\"status\":\"DOWN\",\"reason\":\"partitions\"}");

        inputsReady.set(true);
        assertAnswer("/health/live", 200, "{\"status\":\"UP\"}");
        assertAnswer("/health/ready", 200, "{\"status\":\"UP\"}");
        assertAnswer("/health", 200, "{\"status\":\"UP\"}");

        // e.g. a peer left and the partitions this node took over are being rebuilt
        inputsReady.set(false);
        assertAnswer("/health/live", 200, "{\"status\":\"UP\"}");
        assertAnswer("/health/ready", 503, "{\"status\":\"DOWN\",\"reason\":\"partitions\"}");
        assertAnswer("/health", 503, "{\"status\":\"DOWN\",\"reason\":\"partitions\"}");
    }

    @Test
    void aPausedNodeIsNotReadyWhateverElseHolds() throws Exception {
        backups.set(true);
        inputsReady.set(true);
        paused.set(true);
        assertAnswer("/health/ready", 503, "{\"status\":\"DOWN\",\"reason\":\"paused\"}");
        assertAnswer("/health/live", 200, "{\"status\":\"UP\"}");
        paused.set(false);
        assertAnswer("/health/ready", 200, "{\"status\":\"UP\"}");
    }

    @Test
    void stoppingIsNotReadyEvenWithEveryInputReady() throws Exception {
        backups.set(true);
        inputsReady.set(true);
        assertAnswer("/health/ready", 200, "{\"status\":\"UP\"}");
        health.stopping();
        assertAnswer("/health/ready", 503, "{\"status\":\"DOWN\",\"reason\":\"stopping\",\"stopping\":true}");
        assertAnswer("/health", 503, "{\"status\":\"DOWN\",\"reason\":\"stopping\",\"stopping\":true}");
        assertAnswer("/health/live", 200, "{\"status\":\"UP\"}");
        assertEquals(Health.Readiness.STOPPING, health.readiness());
    }

    @Test
    void onlyTheThreePathsAreProbes() throws Exception {
        assertAll(
                () -> assertEquals(418, get("/healthz").statusCode()),
                () -> assertEquals(418, get("/health/").statusCode()),
                () -> assertEquals(418, get("/health/other").statusCode()),
                () -> assertEquals(418, get("/000000000000/health").statusCode()));
    }
}
