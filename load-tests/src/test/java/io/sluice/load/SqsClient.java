package io.sluice.load;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A minimal blocking SQS client (AWS JSON 1.0 through {@link SqsProtocol#JSON}) for the simulations' set-up work:
 * creating, filling and deleting queues, which is not part of what Gatling measures.
 */
final class SqsClient {
    private static final int MAX_ATTEMPTS = 3;
    /** 503 answers retried, {@value #UNAVAILABLE_PAUSE_MILLIS} ms apart: at most a minute. */
    private static final int MAX_UNAVAILABLE = 300;

    private static final long UNAVAILABLE_PAUSE_MILLIS = 200;
    private static final String FORWARDED_METRIC = "sluice_requests_forwarded_total";
    private final HttpClient client;
    private final URI endpoint;

    SqsClient(String endpoint) {
        this.client = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(5))
                .build();
        this.endpoint = URI.create(endpoint + "/");
    }

    /** Sends one action and returns the reply; anything but 200 is an error. */
    Reply call(String action, Map<String, ?> members) {
        HttpRequest request = HttpRequest.newBuilder(endpoint)
                .timeout(Duration.ofSeconds(30))
                .header("X-Amz-Target", SqsProtocol.JSON.target(action))
                .header("Content-Type", SqsProtocol.JSON.contentType())
                .POST(HttpRequest.BodyPublishers.ofString(SqsProtocol.JSON.body(action, members)))
                .build();
        // Set-up calls (create, fill, delete), not measured. A 503 (a broker near its heap limit refuses messages
        // until a collection frees room) is sent again after a pause.
        HttpResponse<String> response = send(action, request);
        for (int i = 1; response.statusCode() == 503 && i < MAX_UNAVAILABLE; i++) {
            pause(action);
            response = send(action, request);
        }
        if (response.statusCode() != 200) {
            throw new IllegalStateException(action + " answered " + response.statusCode() + ": " + response.body());
        }
        return SqsProtocol.JSON.reply(response.body());
    }

    /**
     * How many requests the node has sent on to a partition's owner on another node so far: Sluice's
     * {@code sluice_requests_forwarded_total} at {@code GET /metrics}; -1 from a broker without it (ElasticMQ) or
     * when the node does not answer.
     */
    long forwardedRequests() {
        HttpRequest request = HttpRequest.newBuilder(endpoint.resolve("/metrics"))
                .timeout(Duration.ofSeconds(5))
                .GET()
                .build();
        try {
            HttpResponse<String> response = client.send(request, HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() != 200) {
                return -1;
            }
            for (String line : response.body().split("\n")) {
                if (line.startsWith(FORWARDED_METRIC + " ")) {
                    return (long) Double.parseDouble(
                            line.substring(FORWARDED_METRIC.length() + 1).trim());
                }
            }
            return -1;
        } catch (IOException | RuntimeException e) {
            return -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }

    /** One request; a connection that broke is retried on a new one, {@value #MAX_ATTEMPTS} attempts in all. */
    private HttpResponse<String> send(String action, HttpRequest request) {
        for (int attempt = 1; ; attempt++) {
            try {
                return client.send(request, HttpResponse.BodyHandlers.ofString());
            } catch (IOException e) {
                if (attempt == MAX_ATTEMPTS) {
                    throw new IllegalStateException(action + " to " + endpoint + " failed: " + e, e);
                }
                System.err.println("SqsClient: " + action + " to " + endpoint + " failed (" + e + "), retrying");
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(action + " interrupted", e);
            }
        }
    }

    private static void pause(String action) {
        try {
            Thread.sleep(UNAVAILABLE_PAUSE_MILLIS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(action + " interrupted", e);
        }
    }

    /** Creates (or finds) the queue and returns the URL the broker gave for it. */
    String createQueue(String name, Map<String, String> attributes) {
        Map<String, Object> members = new LinkedHashMap<>();
        members.put("QueueName", name);
        if (!attributes.isEmpty()) {
            members.put("Attributes", attributes);
        }
        String url = call("CreateQueue", members).text("QueueUrl");
        if (url == null) {
            throw new IllegalStateException("CreateQueue answered without a QueueUrl");
        }
        return url;
    }

    /** Sends one SendMessageBatch of {@code count} (1..10) copies of {@code body}; fails on any failed entry. */
    void sendBatch(String queueUrl, String body, int count) {
        Reply reply = call("SendMessageBatch", Map.of("QueueUrl", queueUrl, "Entries", batchEntries(body, count)));
        if (reply.failed() > 0 || reply.successful() != count) {
            throw new IllegalStateException("SendMessageBatch: " + reply.successful() + " of " + count
                    + " entries stored, " + reply.failed() + " failed");
        }
    }

    /** The entries of a SendMessageBatch: ids m0, m1, ... each with {@code body}. */
    static List<Map<String, String>> batchEntries(String body, int count) {
        List<Map<String, String>> entries = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            Map<String, String> entry = new LinkedHashMap<>();
            entry.put("Id", "m" + i);
            entry.put("MessageBody", body);
            entries.add(entry);
        }
        return entries;
    }

    /** ApproximateNumberOfMessages of the queue, or -1 if the answer did not carry it. */
    long visibleMessages(String queueUrl) {
        String n = call(
                        "GetQueueAttributes",
                        Map.of("QueueUrl", queueUrl, "AttributeNames", List.of("ApproximateNumberOfMessages")))
                .attributes()
                .get("ApproximateNumberOfMessages");
        return n == null ? -1 : Long.parseLong(n);
    }

    void deleteQueue(String queueUrl) {
        call("DeleteQueue", Map.of("QueueUrl", queueUrl));
    }
}
