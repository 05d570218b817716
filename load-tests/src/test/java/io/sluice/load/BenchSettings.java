package io.sluice.load;

import java.time.Duration;

/**
 * The knobs every simulation reads from system properties ({@code mvn ... -Dsqs.endpoint=... -Dusers=...}).
 * Everything is bounded: a run lasts {@code duration} seconds with at most {@code users} virtual users.
 */
record BenchSettings(String endpoint, String queueName, int users, Duration duration, int messageSize, String resultFile) {

    static BenchSettings fromSystemProperties(String defaultQueuePrefix) {
        String endpoint = System.getProperty("sqs.endpoint", "http://127.0.0.1:9324");
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
        return new BenchSettings(stripSlash(endpoint), queue, users, Duration.ofSeconds(seconds), size,
                System.getProperty("bench.out"));
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
