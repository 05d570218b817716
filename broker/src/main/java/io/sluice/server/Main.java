package io.sluice.server;

import io.sluice.config.BrokerConfig;
import io.sluice.config.ConfigLoader;
import java.util.Arrays;
import java.util.concurrent.CountDownLatch;
import java.util.logging.Level;
import java.util.logging.Logger;

/** {@code java -jar sluice.jar [--port 9324] [--config sluice.yaml] ...}: runs one node until SIGTERM. */
public final class Main {
    // Held here because JUL keeps loggers weakly: a level set on a dropped logger is lost.
    // Hazelcast is chatty at INFO; membership changes (which operators want) stay visible.
    private static final Logger HAZELCAST_LOG = Logger.getLogger("com.hazelcast");
    private static final Logger MEMBERSHIP_LOG = Logger.getLogger("com.hazelcast.internal.cluster");

    private Main() { }

    /**
     * The JDK's common pool has parallelism cores - 1, so 1 on a 2-core machine; Hazelcast then
     * runs every callback registered without an executor on a thread started for it. Sluice's
     * own callbacks all name their executor; this keeps anything else (the Vert.x cluster
     * manager's) from paying a thread start each. Set before anything touches the pool.
     */
    static final String COMMON_POOL_PARALLELISM = "java.util.concurrent.ForkJoinPool.common.parallelism";

    public static void main(String[] args) throws InterruptedException {
        if (System.getProperty(COMMON_POOL_PARALLELISM) == null) {
            System.setProperty(COMMON_POOL_PARALLELISM, String.valueOf(Math.max(2, Runtime.getRuntime().availableProcessors())));
        }
        System.setProperty("java.util.logging.SimpleFormatter.format", "%1$tFT%1$tT.%1$tL %4$s %3$s - %5$s%6$s%n");
        Logger log = Logger.getLogger("io.sluice");
        HAZELCAST_LOG.setLevel(Level.WARNING);
        MEMBERSHIP_LOG.setLevel(Level.INFO);
        BrokerConfig config;
        try {
            config = ConfigLoader.load(Arrays.asList(args), System.getenv());
        } catch (IllegalArgumentException e) {
            System.err.println("sluice: " + e.getMessage());
            System.exit(2);
            return;
        }
        SluiceNode node;
        try {
            node = SluiceNode.start(config);
        } catch (RuntimeException e) {
            System.err.println("sluice: " + e.getMessage() + (e.getCause() != null ? ": " + e.getCause().getMessage() : ""));
            System.exit(1);
            return;
        }
        CountDownLatch stopped = new CountDownLatch(1);
        // Close the node on SIGTERM/SIGINT so in-progress requests finish and the port is released.
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            log.info("stopping");
            node.close();
            stopped.countDown();
        }, "sluice-shutdown"));
        log.info("Sluice ready on " + config.host() + ":" + node.port() + ", queue URLs " + node.baseUrl()
                + "/" + config.accountId() + "/<name>, " + config.partitions() + " partitions per queue");
        stopped.await();
    }
}
