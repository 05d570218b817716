package io.sluice.server;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Picks the port of a node started with {@code --port 0}, and of test nodes. The port is bound
 * seconds after it is chosen (after Hazelcast has started, or after a JVM has), so it is taken from
 * outside the kernel's ephemeral range: a port from inside it (what {@code new ServerSocket(0)}
 * gives) can meanwhile become the local end of an outgoing connection, such as a Hazelcast member
 * connecting to another, and the bind then fails with "Address already in use".
 */
public final class FreePorts {
    /** The lowest port handed out: above the well-known and most registered service ports. */
    static final int LOWEST_PORT = 20000;

    private static final Set<Integer> HANDED_OUT = ConcurrentHashMap.newKeySet();

    private FreePorts() {}

    /** A TCP port free on every address now, outside the ephemeral range, not handed out before by this JVM. */
    public static int pick() {
        PortRange ephemeral = ephemeralRange();
        boolean below = ephemeral.low() - LOWEST_PORT >= 65535 - ephemeral.high();
        int from = below ? LOWEST_PORT : ephemeral.high() + 1;
        int to = below ? ephemeral.low() - 1 : 65535;
        if (to - from < 100) {
            throw new IllegalStateException("the ephemeral port range " + ephemeral + " leaves no room for a port");
        }
        for (int i = 0; i < 1000; i++) {
            int p = ThreadLocalRandom.current().nextInt(from, to + 1);
            if (HANDED_OUT.contains(p)) {
                continue;
            }
            try (ServerSocket s = new ServerSocket()) {
                s.bind(new InetSocketAddress(p));
            } catch (IOException inUse) {
                continue;
            }
            if (HANDED_OUT.add(p)) {
                return p;
            }
        }
        throw new IllegalStateException("no free port in " + from + ".." + to);
    }

    /** Whether {@code port} lies in the kernel's ephemeral range. */
    static boolean ephemeral(int port) {
        PortRange range = ephemeralRange();
        return port >= range.low() && port <= range.high();
    }

    private record PortRange(int low, int high) {
        @Override
        public String toString() {
            return low + ".." + high;
        }
    }

    /** {@code net.ipv4.ip_local_port_range}, or Linux's default when it cannot be read. */
    private static PortRange ephemeralRange() {
        try {
            String[] bounds = Files.readString(
                            Path.of("/proc/sys/net/ipv4/ip_local_port_range"), StandardCharsets.US_ASCII)
                    .trim()
                    .split("\\s+");
            return new PortRange(Integer.parseInt(bounds[0]), Integer.parseInt(bounds[1]));
        } catch (IOException | RuntimeException e) {
            return new PortRange(32768, 60999);
        }
    }
}
