package io.sluice.load;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The knobs every simulation reads from system properties ({@code mvn ... -Dsqs.endpoints=... -Dusers=...}).
 * Everything is bounded: a run lasts {@code duration} seconds with at most {@code users} virtual users.
 *
 * <p>{@code sqs.endpoints} is a comma-separated list of endpoints (the nodes of a cluster); without it,
 * {@code sqs.endpoint} is the only one. Each virtual user is pinned to one endpoint, round-robin over the list
 * by user id ({@link #endpointIndex(long)}). Set-up work (creating the queue) goes to the first endpoint; the
 * queue URL it answers is used unchanged on every endpoint.
 */
record BenchSettings(List<String> endpoints, String queueName, int users, Duration duration, int messageSize,
        String resultFile) {

    static final int MAX_ENDPOINTS = 64;

    BenchSettings {
        endpoints = List.copyOf(endpoints);
    }

    static BenchSettings fromSystemProperties(String defaultQueuePrefix) {
        List<String> endpoints = parseEndpoints(System.getProperty("sqs.endpoints"),
                System.getProperty("sqs.endpoint", "http://127.0.0.1:9324"));
        // A fresh queue per run by default, so a second run against the same broker starts empty.
        String queue = System.getProperty("sqs.queue", defaultQueuePrefix + "-" + System.currentTimeMillis());
        int users = Integer.getInteger("users", 32);
        long seconds = Long.getLong("duration", 30L);
        int size = Integer.getInteger("messageSize", 100);
        if (users < 1 || users > 1024) {
            throw new IllegalArgumentException("users must be in 1..1024, got " + users);
        }
        if (seconds < 1 || seconds > 3600) {
            throw new IllegalArgumentException("duration must be in 1..3600 seconds, got " + seconds);
        }
        if (size < 1 || size > 262_144) {
            throw new IllegalArgumentException("messageSize must be in 1..262144 bytes, got " + size);
        }
        return new BenchSettings(endpoints, queue, users, Duration.ofSeconds(seconds), size,
                System.getProperty("bench.out"));
    }

    /** {@code list} (comma-separated) when it names at least one endpoint, otherwise {@code single}. */
    static List<String> parseEndpoints(String list, String single) {
        List<String> out = new ArrayList<>();
        if (list != null) {
            for (String part : list.split(",")) {
                if (!part.isBlank()) {
                    out.add(checkedEndpoint(part.trim()));
                }
            }
        }
        if (out.isEmpty()) {
            out.add(checkedEndpoint(single.trim()));
        }
        if (out.size() > MAX_ENDPOINTS) {
            throw new IllegalArgumentException("at most " + MAX_ENDPOINTS + " endpoints, got " + out.size());
        }
        return out;
    }

    private static String checkedEndpoint(String url) {
        if (!url.startsWith("http://") && !url.startsWith("https://")) {
            throw new IllegalArgumentException("an endpoint must start with http:// or https://, got '" + url + "'");
        }
        return stripSlash(url);
    }

    /** The first endpoint: set-up requests (CreateQueue) and Gatling's warm-up request go there. */
    String endpoint() {
        return endpoints.get(0);
    }

    /** The endpoint list as given, comma-separated. */
    String endpointList() {
        return String.join(",", endpoints);
    }

    /** The endpoint a virtual user is pinned to: round-robin over the list by Gatling's user id (1, 2, 3, ...). */
    int endpointIndex(long userId) {
        return (int) Math.floorMod(userId - 1, (long) endpoints.size());
    }

    /** A message body of {@code messageSize} ASCII characters that needs no JSON escaping. */
    String messageBody() {
        StringBuilder b = new StringBuilder(messageSize);
        for (int i = 0; i < messageSize; i++) {
            b.append((char) ('a' + i % 26));
        }
        return b.toString();
    }

    private static String stripSlash(String url) {
        return url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
    }
}
