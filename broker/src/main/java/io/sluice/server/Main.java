package io.sluice.server;

import io.sluice.config.BrokerConfig;
import io.sluice.config.ConfigLoader;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.logging.Level;
import java.util.logging.Logger;

/** {@code java -jar sluice.jar [--port 9324] [--config sluice.yaml] ...}: runs one node until SIGTERM. */
public final class Main {
    // Held here because JUL keeps loggers weakly: a level set on a dropped logger is lost.
    // Hazelcast is chatty at INFO; membership changes (which operators want) stay visible.
    private static final Logger HAZELCAST_LOG = Logger.getLogger("com.hazelcast");
    private static final Logger MEMBERSHIP_LOG = Logger.getLogger("com.hazelcast.internal.cluster");

    private Main() {}

    /**
     * The JDK's common pool has parallelism cores - 1, so 1 on a 2-core machine; Hazelcast then
     * runs every callback registered without an executor on a thread started for it. Sluice's
     * own callbacks all name their executor; this keeps anything else (the Vert.x cluster
     * manager's) from paying a thread start each. Set before anything touches the pool.
     */
    static final String COMMON_POOL_PARALLELISM = "java.util.concurrent.ForkJoinPool.common.parallelism";

    /**
     * With {@code -Dsluice.exitWhenReady=true} the node stops as soon as it is ready: the build
     * runs it once that way under {@code -XX:ArchiveClassesAtExit} to write the class-data archive
     * ({@code target/sluice.jsa}) that makes later starts load their classes from memory maps.
     */
    static final String EXIT_WHEN_READY = "sluice.exitWhenReady";

    private static boolean isLoopback(String host) {
        try {
            return InetAddress.getByName(host).isLoopbackAddress();
        } catch (UnknownHostException e) {
            return false;
        }
    }

    public static void main(String[] args) throws InterruptedException {
        if (System.getProperty(COMMON_POOL_PARALLELISM) == null) {
            System.setProperty(
                    COMMON_POOL_PARALLELISM,
                    String.valueOf(Math.max(2, Runtime.getRuntime().availableProcessors())));
        }
        System.setProperty("java.util.logging.SimpleFormatter.format", "%1$tFT%1$tT.%1$tL %4$s %3$s - %5$s%6$s%n");
        Logger log = Logger.getLogger("io.sluice");
        HAZELCAST_LOG.setLevel(Level.WARNING);
        MEMBERSHIP_LOG.setLevel(Level.INFO);
        BrokerConfig config;
        try {
            Optional<BrokerConfig> loaded = ConfigLoader.load(
                    Arrays.asList(args), System.getenv(), new PrintWriter(System.out, true, StandardCharsets.UTF_8));
            if (loaded.isEmpty()) {
                return; // --help or --version, printed
            }
            config = loaded.get();
        } catch (IllegalArgumentException e) {
            System.err.println("sluice: " + e.getMessage());
            System.exit(2);
            return;
        }
        SluiceNode node;
        try {
            node = SluiceNode.start(config);
        } catch (RuntimeException e) {
            System.err.println("sluice: " + e.getMessage()
                    + (e.getCause() != null ? ": " + e.getCause().getMessage() : ""));
            System.exit(1);
            return;
        }
        CountDownLatch stopped = new CountDownLatch(1);
        // Close the node on SIGTERM/SIGINT so in-progress requests finish and the port is released.
        Runtime.getRuntime()
                .addShutdownHook(new Thread(
                        () -> {
                            log.info("stopping");
                            node.close();
                            stopped.countDown();
                        },
                        "sluice-shutdown"));
        log.info("Sluice ready on " + config.host() + ":" + node.port() + ", queue URLs " + node.baseUrl()
                + "/" + config.accountId() + "/<name>, " + config.partitions() + " partitions per queue; "
                + (config.authenticates()
                        ? "requests must be signed (SigV4) with one of "
                                + config.credentials().size() + " access keys"
                        : "authentication off")
                + "; sockets on " + node.transport());
        if (config.nativeTransport() && node.nativeTransportMissing() != null) {
            log.info("no native transport here (" + node.nativeTransportMissing() + "): sockets on Java NIO");
        }
        if (!config.authenticates() && !isLoopback(config.host())) {
            log.warning(
                    "*** AUTHENTICATION IS OFF on " + config.host() + ", which is not a loopback address: anyone who"
                            + " can reach this port can read, send and delete messages. Configure access keys with --credentials,"
                            + " SLUICE_CREDENTIALS or --credentials-file. ***");
        }
        if (Boolean.getBoolean(EXIT_WHEN_READY)) {
            System.exit(0);
        }
        stopped.await();
    }
}
