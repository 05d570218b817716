package io.sluice.load;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The knobs of {@link SqsSimulation}, read from system properties ({@code mvn ... -Dworkload=send -Dprotocol=query}).
 * Everything is bounded: a run lasts about {@code duration} seconds (plus a bounded drain for the workloads with
 * consumers) with at most {@code users} (or {@code consumers} + {@code groups}) virtual users.
 *
 * <p>{@code sqs.endpoints} is a comma-separated list of endpoints; without it, {@code sqs.endpoint} is the only one.
 * Each virtual user is pinned to one endpoint, round-robin over the list by user id ({@link #endpointIndex(long)}).
 * Set-up work (creating the queue) goes to the first endpoint; the queue URL it answers is used unchanged on every
 * endpoint.
 */
record BenchSettings(
        Workload workload,
        SqsProtocol protocol,
        List<String> endpoints,
        String queueName,
        int users,
        Duration duration,
        int messageSize,
        int prefill,
        int rate,
        int consumers,
        int groups,
        Duration e2eWarmup,
        Duration clientWarmup,
        boolean keepQueue,
        String resultFile,
        String latencyFile) {

    /** Whether {@code bench.latencies} names a file for the e2e timeline ({@link RunStats}). */
    boolean wantsLatencyTimeline() {
        return latencyFile != null && !latencyFile.isBlank();
    }

    /** What a run does; see {@link SqsSimulation}. */
    enum Workload {
        SEND,
        BATCH,
        RECVDEL,
        FIFO,
        E2E,
        WARMUP,
        FILL;

        static Workload parse(String s) {
            try {
                return valueOf(s.trim().toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(
                        "workload must be one of send, batch, recvdel, fifo, e2e, warmup, fill;" + " got '" + s + "'");
            }
        }

        String shortName() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    static final int MAX_ENDPOINTS = 64;
    static final int MAX_PREFILL = 10_000_000;

    BenchSettings {
        endpoints = List.copyOf(endpoints);
    }

    static BenchSettings fromSystemProperties() {
        Workload workload = Workload.parse(System.getProperty("workload", "send"));
        SqsProtocol protocol = SqsProtocol.parse(System.getProperty("protocol", "json"));
        List<String> endpoints = parseEndpoints(
                System.getProperty("sqs.endpoints"), System.getProperty("sqs.endpoint", "http://127.0.0.1:9324"));
        // A fresh queue per run by default, so a second run against the same broker starts empty. A name given
        // (-Dsqs.queue: on three nodes the name decides where Hazelcast puts the queue's partitions) is the measured
        // runs'; the server warm-up run before them uses it with a suffix, since a queue deleted at the end of a
        // run cannot be created again under its name for 60 s.
        String given = System.getProperty("sqs.queue");
        String queue = given == null
                ? "bench-" + workload.shortName() + "-" + System.currentTimeMillis()
                : workload == Workload.WARMUP ? given + "-warmup" : given;
        int users = Integer.getInteger("users", 32);
        long seconds = Long.getLong("duration", 30L);
        int size = Integer.getInteger("messageSize", 100);
        int prefill = Integer.getInteger("prefill", 1_000_000);
        int rate = Integer.getInteger("rate", 1000);
        int consumers = Integer.getInteger("consumers", 4);
        int groups = Integer.getInteger("groups", 10);
        long e2eWarmup = Long.getLong("e2eWarmup", 45L);
        long clientWarmup = Long.getLong("clientWarmup", 45L);
        boolean keep =
                Boolean.parseBoolean(System.getProperty("sqs.keepQueue", workload == Workload.FILL ? "true" : "false"));
        check("users", users, 1, 1024);
        check("duration", seconds, 1, 3600);
        check("messageSize", size, 32, 262_144);
        check("prefill", prefill, 0, MAX_PREFILL);
        check("rate", rate, 1, 20_000);
        check("consumers", consumers, 1, 256);
        check("groups", groups, 1, 1000);
        check("e2eWarmup", e2eWarmup, 0, 600);
        check("clientWarmup", clientWarmup, 0, 600);
        if (!queue.matches("[A-Za-z0-9_-]{1,72}")) {
            throw new IllegalArgumentException("sqs.queue must be 1..72 of [A-Za-z0-9_-], got '" + queue + "'");
        }
        return new BenchSettings(
                workload,
                protocol,
                endpoints,
                queue,
                users,
                Duration.ofSeconds(seconds),
                size,
                prefill,
                rate,
                consumers,
                groups,
                Duration.ofSeconds(e2eWarmup),
                Duration.ofSeconds(clientWarmup),
                keep,
                System.getProperty("bench.out"),
                System.getProperty("bench.latencies"));
    }

    private static void check(String name, long value, long min, long max) {
        if (value < min || value > max) {
            throw new IllegalArgumentException(name + " must be in " + min + ".." + max + ", got " + value);
        }
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
        return url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
    }

    /**
     * Whether this run first warms up its own JVM ({@code clientWarmup} seconds of unmeasured load on queues of its
     * own) before the measured window: the throughput workloads. e2e has {@code e2eWarmup} instead; warmup and fill
     * measure nothing.
     */
    boolean warmsUpClient() {
        return !clientWarmup.isZero()
                && (workload == Workload.SEND
                        || workload == Workload.BATCH
                        || workload == Workload.RECVDEL
                        || workload == Workload.FIFO);
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

    /** {@code prefix} followed by ASCII letters up to {@code messageSize} characters (never shorter than the prefix). */
    String messageBody(String prefix) {
        StringBuilder b = new StringBuilder(Math.max(messageSize, prefix.length())).append(prefix);
        for (int i = b.length(); i < messageSize; i++) {
            b.append((char) ('a' + i % 26));
        }
        return b.toString();
    }
}
