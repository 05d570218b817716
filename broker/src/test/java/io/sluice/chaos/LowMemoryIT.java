package io.sluice.chaos;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchRequestEntry;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchResponse;
import software.amazon.awssdk.services.sqs.model.SqsException;

/**
 * A node with a small heap, filled with messages until it refuses them: it answers
 * ServiceUnavailable (503, which SDKs retry) instead of running out of memory, stays up and
 * ready, keeps every message it acknowledged, and still serves receives.
 */
class LowMemoryIT {
    private ClusterProcess node;

    @AfterEach
    void stop() {
        ClusterProcess.killAll();
    }

    @Test
    void aFullNodeRefusesSendsAndKeepsWhatItAcknowledged() {
        node = ClusterProcess.startStandalone("low-memory", "128m").awaitReady(Duration.ofSeconds(90));
        try (SqsClient sqs = SqsClient.builder()
                .endpointOverride(URI.create(node.endpoint()))
                .region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("x", "x")))
                .httpClient(UrlConnectionHttpClient.create())
                .overrideConfiguration(o -> o.retryStrategy(AwsRetryStrategy.doNotRetry()))
                .build()) {
            String url = sqs.createQueue(r -> r.queueName("fill")).queueUrl();
            String body = "x".repeat(8 * 1024);
            List<SendMessageBatchRequestEntry> batch = new ArrayList<>();
            for (int i = 0; i < 10; i++) {
                batch.add(SendMessageBatchRequestEntry.builder()
                        .id("e" + i)
                        .messageBody(body)
                        .build());
            }
            long acknowledged = 0;
            SqsException refused = null;
            // 128 MiB of heap holds far fewer than 5,000 batches of 80 KiB.
            for (int i = 0; i < 5_000 && refused == null; i++) {
                try {
                    SendMessageBatchResponse r =
                            sqs.sendMessageBatch(b -> b.queueUrl(url).entries(batch));
                    acknowledged += r.successful().size();
                } catch (SqsException e) {
                    refused = e;
                }
            }
            assertTrue(refused != null, "the node never refused a send; acknowledged " + acknowledged);
            assertEquals(503, refused.statusCode(), refused.getMessage());
            assertEquals("ServiceUnavailable", refused.awsErrorDetails().errorCode());
            assertTrue(node.alive() && node.healthy(), "the node should stay up and ready");
            long stored = Long.parseLong(sqs.getQueueAttributes(
                            r -> r.queueUrl(url).attributeNamesWithStrings("ApproximateNumberOfMessages"))
                    .attributesAsStrings()
                    .get("ApproximateNumberOfMessages"));
            assertEquals(acknowledged, stored, "every acknowledged message is still there");
            assertEquals(
                    10,
                    sqs.receiveMessage(r -> r.queueUrl(url).maxNumberOfMessages(10))
                            .messages()
                            .size());
        }
    }
}
