package io.sluice.load;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.StringJoiner;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * Counts the messages a simulation moved and the time between its first request and its last
 * completed one, so messages/s does not include Gatling's start-up or the queue pre-fill.
 * Users and messages are also counted per endpoint, to show how the load was spread over a cluster.
 */
final class RunWindow {
    private final LongAdder messages = new LongAdder();
    private final LongAdder[] messagesByEndpoint;
    private final LongAdder[] usersByEndpoint;
    private final AtomicLong firstNanos = new AtomicLong();
    private final AtomicLong lastNanos = new AtomicLong();

    RunWindow(int endpoints) {
        messagesByEndpoint = new LongAdder[endpoints];
        usersByEndpoint = new LongAdder[endpoints];
        for (int i = 0; i < endpoints; i++) {
            messagesByEndpoint[i] = new LongAdder();
            usersByEndpoint[i] = new LongAdder();
        }
    }

    /** A virtual user pinned to endpoint {@code endpoint} starts. */
    void started(int endpoint) {
        firstNanos.compareAndSet(0, System.nanoTime());
        usersByEndpoint[endpoint].increment();
    }

    void completed(int endpoint, long count) {
        if (count > 0) {
            messages.add(count);
            messagesByEndpoint[endpoint].add(count);
        }
        long now = System.nanoTime();
        lastNanos.accumulateAndGet(now, Math::max);
    }

    long messages() {
        return messages.sum();
    }

    double seconds() {
        long first = firstNanos.get();
        long last = lastNanos.get();
        return first == 0 || last <= first ? 0 : (last - first) / 1e9;
    }

    double messagesPerSecond() {
        double s = seconds();
        return s == 0 ? 0 : messages() / s;
    }

    private static String joined(LongAdder[] counts) {
        StringJoiner j = new StringJoiner(",");
        for (LongAdder c : counts) {
            j.add(Long.toString(c.sum()));
        }
        return j.toString();
    }

    /** Prints the figures and, when -Dbench.out is set, writes them there as a properties file. */
    void report(String simulation, BenchSettings settings) {
        String text = String.format(Locale.ROOT,
                "simulation=%s%nendpoint=%s%nendpoints=%d%nusers=%d%nmessages=%d%nseconds=%.3f%nmessagesPerSecond=%.1f%n"
                        + "usersByEndpoint=%s%nmessagesByEndpoint=%s%n",
                simulation, settings.endpointList(), settings.endpoints().size(), settings.users(), messages(),
                seconds(), messagesPerSecond(), joined(usersByEndpoint), joined(messagesByEndpoint));
        System.out.print("---- " + simulation + " ----\n" + text);
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
}
