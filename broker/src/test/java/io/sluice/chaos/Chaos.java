package io.sluice.chaos;

import static org.awaitility.Awaitility.await;

import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;

/** Small helpers shared by the chaos tests. */
final class Chaos {
    private Chaos() {}

    /** Prints a result line and appends it to {@code target/chaos-logs/reports.txt}. */
    static void report(String line) {
        String stamped = Instant.now() + " " + line;
        System.out.println("CHAOS " + stamped);
        try {
            Files.createDirectories(ClusterProcess.LOG_DIR);
            Files.writeString(
                    ClusterProcess.LOG_DIR.resolve("reports.txt"),
                    stamped + System.lineSeparator(),
                    StandardCharsets.UTF_8,
                    StandardOpenOption.CREATE,
                    StandardOpenOption.APPEND);
        } catch (IOException e) {
            System.err.println("cannot write the chaos report: " + e);
        }
    }

    /** An SDK client for one node: standard retries, the given call timeout (long polls need more than 10 s). */
    static SqsClient client(String endpoint, Duration apiCallTimeout) {
        return SqsClient.builder()
                .endpointOverride(URI.create(endpoint))
                .region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("x", "x")))
                .httpClient(UrlConnectionHttpClient.builder()
                        .connectionTimeout(Duration.ofSeconds(2))
                        .socketTimeout(apiCallTimeout.plusSeconds(2))
                        .build())
                .overrideConfiguration(o -> o.retryStrategy(AwsRetryStrategy.standardRetryStrategy())
                        .apiCallTimeout(apiCallTimeout))
                .build();
    }

    /** The ARN of the queue at {@code url}, as the node answers it. */
    static String arnOf(SqsClient sqs, String url) {
        return sqs.getQueueAttributes(r -> r.queueUrl(url).attributeNames(QueueAttributeName.QUEUE_ARN))
                .attributes()
                .get(QueueAttributeName.QUEUE_ARN);
    }

    /** CreateQueue attributes that make a queue send a message to {@code deadLetterArn} after one receive. */
    static Map<String, String> redrivingTo(String deadLetterArn) {
        return Map.of(
                "RedrivePolicy",
                new JsonObject()
                        .put("deadLetterTargetArn", deadLetterArn)
                        .put("maxReceiveCount", 1)
                        .encode());
    }

    /** The queue URL of {@code queue} on the node at {@code endpoint}. */
    static String url(String endpoint, String queue) {
        return endpoint + "/000000000000/" + queue;
    }

    /** Lets the load run until {@code checker.now() >= atMs} (a time-bounded wait, no condition). */
    static void runLoadUntil(LoadChecker checker, long atMs) {
        await().atMost(Duration.ofMillis(Math.max(0, atMs - checker.now()) + 5_000))
                .pollInterval(Duration.ofMillis(50))
                .until(() -> checker.now() >= atMs);
    }
}
