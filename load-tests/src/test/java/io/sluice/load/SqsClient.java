package io.sluice.load;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A minimal blocking AWS JSON 1.0 client for the simulations' set-up work (creating and filling queues),
 * which is not part of what Gatling measures.
 */
final class SqsClient {
    static final String CONTENT_TYPE = "application/x-amz-json-1.0";
    private static final Pattern QUEUE_URL = Pattern.compile("\"QueueUrl\"\\s*:\\s*\"([^\"]+)\"");
    private static final Pattern FAILED_ENTRY = Pattern.compile("\"Failed\"\\s*:\\s*\\[\\s*\\{");
    private static final Pattern VISIBLE = Pattern.compile("\"ApproximateNumberOfMessages\"\\s*:\\s*\"?(\\d+)");

    private final HttpClient client;
    private final URI endpoint;

    SqsClient(String endpoint) {
        this.client = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(5))
                .build();
        this.endpoint = URI.create(endpoint + "/");
    }

    /** Sends one action and returns the response body; anything but 200 is an error. */
    String call(String action, String jsonBody) {
        HttpRequest request = HttpRequest.newBuilder(endpoint)
                .timeout(Duration.ofSeconds(30))
                .header("X-Amz-Target", "AmazonSQS." + action)
                .header("Content-Type", CONTENT_TYPE)
                .POST(HttpRequest.BodyPublishers.ofString(jsonBody))
                .build();
        HttpResponse<String> response;
        try {
            response = client.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new IllegalStateException(action + " to " + endpoint + " failed: " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(action + " interrupted", e);
        }
        if (response.statusCode() != 200) {
            throw new IllegalStateException(action + " answered " + response.statusCode() + ": " + response.body());
        }
        return response.body();
    }

    /** Creates (or finds) the queue and returns the URL the broker gave for it. */
    String createQueue(String name) {
        String body = call("CreateQueue", "{\"QueueName\":\"" + Json.escape(name) + "\"}");
        Matcher m = QUEUE_URL.matcher(body);
        if (!m.find()) {
            throw new IllegalStateException("CreateQueue answered without a QueueUrl: " + body);
        }
        return m.group(1).replace("\\/", "/");
    }

    /** Sends one SendMessageBatch of {@code count} (1..10) copies of {@code messageBody}; fails on any failed entry. */
    void sendBatch(String queueUrl, String messageBody, int count) {
        StringBuilder b = new StringBuilder(64 + count * (messageBody.length() + 40));
        b.append("{\"QueueUrl\":\"").append(Json.escape(queueUrl)).append("\",\"Entries\":[");
        for (int i = 0; i < count; i++) {
            if (i > 0) {
                b.append(',');
            }
            b.append("{\"Id\":\"m").append(i).append("\",\"MessageBody\":\"").append(Json.escape(messageBody)).append("\"}");
        }
        b.append("]}");
        String response = call("SendMessageBatch", b.toString());
        if (FAILED_ENTRY.matcher(response).find()) {
            throw new IllegalStateException("SendMessageBatch had failed entries: " + response);
        }
    }

    /** ApproximateNumberOfMessages of the queue, or -1 if the answer did not carry it. */
    long visibleMessages(String queueUrl) {
        String body = call("GetQueueAttributes", "{\"QueueUrl\":\"" + Json.escape(queueUrl)
                + "\",\"AttributeNames\":[\"ApproximateNumberOfMessages\"]}");
        Matcher m = VISIBLE.matcher(body);
        return m.find() ? Long.parseLong(m.group(1)) : -1;
    }
}
