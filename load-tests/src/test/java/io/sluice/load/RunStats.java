package io.sluice.load;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.StringJoiner;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * What one run measured: the messages it moved and the time between its first request and its last completed one
 * (so messages/s includes neither Gatling's start-up nor a pre-fill), failures, the CPU of the servers and of this
 * client over the run ({@link ProcessCpu}: from the first user's start to the end of the run), the machine's steal
 * time over the same window ({@link HostSteal}), and, for the e2e workload, the send-to-receive latency of every
 * message (up to a bounded number of samples).
 */
final class RunStats {
    private final ProcessCpu serverCpu;
    private final ProcessCpu clientCpu;
    private final HostSteal hostSteal = new HostSteal();
    private final LongAdder messages = new LongAdder();
    private final LongAdder sent = new LongAdder();
    private final LongAdder received = new LongAdder();
    private final LongAdder failures = new LongAdder();
    private final LongAdder duplicates = new LongAdder();
    private final LongAdder orderViolations = new LongAdder();
    private final LongAdder[] messagesByEndpoint;
    private final LongAdder[] usersByEndpoint;
    private final AtomicLong firstNanos = new AtomicLong();
    private final AtomicLong lastNanos = new AtomicLong();
    private final long[] latencies;
    /** When each latency sample arrived (nanoTime), kept only when {@code bench.latencies} asks for the timeline. */
    private final long[] arrivals;

    private final AtomicInteger latencyCount = new AtomicInteger();

    RunStats(int endpoints, ProcessCpu serverCpu, ProcessCpu clientCpu, int maxLatencySamples, boolean keepArrivals) {
        this.serverCpu = serverCpu;
        this.clientCpu = clientCpu;
        messagesByEndpoint = new LongAdder[endpoints];
        usersByEndpoint = new LongAdder[endpoints];
        for (int i = 0; i < endpoints; i++) {
            messagesByEndpoint[i] = new LongAdder();
            usersByEndpoint[i] = new LongAdder();
        }
        latencies = new long[maxLatencySamples];
        arrivals = keepArrivals ? new long[maxLatencySamples] : null;
    }

    /** A virtual user pinned to endpoint {@code endpoint} starts; the first one starts the window and the CPU count. */
    void started(int endpoint) {
        if (firstNanos.get() == 0 && firstNanos.compareAndSet(0, System.nanoTime())) {
            serverCpu.start();
            clientCpu.start();
            hostSteal.start();
        }
        usersByEndpoint[endpoint].increment();
    }

    /** {@code count} messages completed (sent, or deleted) through {@code endpoint}. */
    void completed(int endpoint, long count) {
        if (count > 0) {
            messages.add(count);
            messagesByEndpoint[endpoint].add(count);
        }
        lastNanos.accumulateAndGet(System.nanoTime(), Math::max);
    }

    void sent(long n) {
        sent.add(n);
    }

    void received(long n) {
        received.add(n);
    }

    long sent() {
        return sent.sum();
    }

    long received() {
        return received.sum();
    }

    void failure(long n) {
        if (n > 0) {
            failures.add(n);
        }
    }

    void duplicate() {
        duplicates.increment();
    }

    void orderViolation() {
        orderViolations.increment();
    }

    void latency(long nanos) {
        int i = latencyCount.getAndIncrement();
        if (i < latencies.length) {
            latencies[i] = nanos;
            if (arrivals != null) {
                arrivals[i] = System.nanoTime();
            }
        }
    }

    long messages() {
        return messages.sum();
    }

    double seconds() {
        long first = firstNanos.get();
        long last = lastNanos.get();
        return first == 0 || last <= first ? 0 : (last - first) / 1e9;
    }

    /**
     * The latency samples in arrival order, one line each: seconds since the first sample arrived, then the latency in
     * milliseconds; to see whether a tail is one stall or spread over the run.
     */
    private void writeTimeline(Path out, int count) {
        StringBuilder lines = new StringBuilder(count * 16);
        long first = arrivals[0];
        for (int i = 0; i < count; i++) {
            lines.append(String.format(Locale.ROOT, "%.4f %.3f%n", (arrivals[i] - first) / 1e9, latencies[i] / 1e6));
        }
        try {
            Files.writeString(out, lines);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String joined(LongAdder[] counts) {
        StringJoiner j = new StringJoiner(",");
        for (LongAdder c : counts) {
            j.add(Long.toString(c.sum()));
        }
        return j.toString();
    }

    /**
     * Prints the figures and, when {@code bench.out} is set, writes them there as a properties file. Call once, at
     * the end of the run, before any clean-up that would add server CPU (deleting the queue).
     */
    void report(BenchSettings settings, Map<String, Object> extra) {
        double serverSeconds = serverCpu.secondsSinceStart();
        double clientSeconds = clientCpu.secondsSinceStart();
        double stealPercent = hostSteal.percentSinceStart();
        Map<String, Object> p = new LinkedHashMap<>();
        p.put("workload", settings.workload().shortName());
        p.put("protocol", settings.protocol().shortName());
        p.put("endpoint", settings.endpointList());
        p.put("endpoints", settings.endpoints().size());
        p.put("users", settings.users());
        p.put("messageSize", settings.messageSize());
        long n = messages();
        double secs = seconds();
        p.put("messages", n);
        p.put("seconds", String.format(Locale.ROOT, "%.3f", secs));
        p.put("messagesPerSecond", String.format(Locale.ROOT, "%.1f", secs == 0 ? 0 : n / secs));
        p.put("sent", sent());
        p.put("received", received());
        p.put("failures", failures.sum());
        p.put("duplicates", duplicates.sum());
        p.put("orderViolations", orderViolations.sum());
        p.putAll(extra);
        int count = Math.min(latencyCount.get(), latencies.length);
        if (arrivals != null && count > 0) {
            writeTimeline(Path.of(settings.latencyFile()), count);
        }
        if (latencyCount.get() > 0) {
            long[] sorted = Arrays.copyOf(latencies, count);
            Arrays.sort(sorted);
            p.put("latencyCount", latencyCount.get());
            p.put("latencySamples", count);
            p.put("latencyP50Ms", ms(percentile(sorted, 0.50)));
            p.put("latencyP90Ms", ms(percentile(sorted, 0.90)));
            p.put("latencyP99Ms", ms(percentile(sorted, 0.99)));
            p.put("latencyP999Ms", ms(percentile(sorted, 0.999)));
            p.put("latencyMaxMs", ms(sorted[count - 1]));
        }
        putCpu(p, "serverCpuSeconds", "cpuMicrosPerMessage", serverSeconds, n);
        putCpu(p, "clientCpuSeconds", "clientCpuMicrosPerMessage", clientSeconds, n);
        if (stealPercent >= 0) {
            p.put("hostStealPercent", String.format(Locale.ROOT, "%.1f", stealPercent));
        }
        p.put("usersByEndpoint", joined(usersByEndpoint));
        p.put("messagesByEndpoint", joined(messagesByEndpoint));
        StringBuilder text = new StringBuilder();
        p.forEach((k, v) -> text.append(k).append('=').append(v).append('\n'));
        System.out.print("---- SqsSimulation " + settings.workload().shortName() + " "
                + settings.protocol().shortName() + " ----\n" + text);
        if (settings.resultFile() != null && !settings.resultFile().isBlank()) {
            try {
                Path out = Path.of(settings.resultFile());
                if (out.getParent() != null) {
                    Files.createDirectories(out.getParent());
                }
                Files.writeString(out, text);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    /** The seconds and the µs per message under the given keys; nothing when {@code seconds} is -1. */
    private static void putCpu(Map<String, Object> p, String secondsKey, String perMessageKey, double seconds, long n) {
        if (seconds >= 0) {
            p.put(secondsKey, String.format(Locale.ROOT, "%.2f", seconds));
            p.put(perMessageKey, n == 0 ? "" : String.format(Locale.ROOT, "%.1f", seconds * 1e6 / n));
        }
    }

    private static long percentile(long[] sorted, double q) {
        int i = (int) Math.ceil(q * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, i))];
    }

    private static String ms(long nanos) {
        return String.format(Locale.ROOT, "%.3f", nanos / 1e6);
    }
}
