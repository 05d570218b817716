package io.sluice.it;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Readiness does not flap with queue creation. Found by the hostile-input fuzzing: every
 * CreateQueue made GET /health answer 503 until the next reconcile (up to a second), since the new
 * queue's partitions were counted as owned but not yet rebuilt, though they have nothing to rebuild.
 */
@Timeout(60)
class ReadinessTest {

    @RegisterExtension
    static final BrokerExtension broker = new BrokerExtension();

    @Test
    void theNodeStaysReadyWhileQueuesAreCreated() throws Exception {
        HttpClient http = HttpClient.newHttpClient();
        HttpRequest health = HttpRequest.newBuilder(URI.create(broker.baseUrl() + "/health"))
                .timeout(Duration.ofSeconds(10))
                .build();
        for (int i = 0; i < 10; i++) {
            String name = BrokerExtension.uniqueName("ready");
            broker.sqs().createQueue(b -> b.queueName(name));
            HttpResponse<String> r = http.send(health, HttpResponse.BodyHandlers.ofString());
            assertEquals(200, r.statusCode(), "health right after creating " + name + ": " + r.body());
        }
    }
}
