package io.sluice.server;

import io.vertx.core.http.HttpServerRequest;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.logging.Logger;

/**
 * The probes, answered with a small JSON body:
 * <ul>
 *   <li>{@code GET /health/live}: 200 whenever the process serves HTTP (a node waiting for its
 *       peers or rebuilding partitions is alive, only not ready);</li>
 *   <li>{@code GET /health/ready}: 200 when the node is ready (joined, the cluster's backups in
 *       place, every partition it owns rebuilt, not suspected of a pause, not stopping), 503 while
 *       it starts, rebalances, cannot rebuild the partitions it took over (as without a majority,
 *       under split-brain protection) or stops;</li>
 *   <li>{@code GET /health}: the same as {@code /health/ready}.</li>
 * </ul>
 * A 503 names what holds the node back in {@code reason}; a change of answer is logged.
 */
final class Health {
    private static final Logger LOG = Logger.getLogger(Health.class.getName());
    static final String LIVE_PATH = "/health/live";
    static final String READY_PATH = "/health/ready";
    static final String LEGACY_PATH = "/health";

    /** What a probe path asks. */
    enum Probe {
        LIVE,
        READY
    }

    /** What a readiness answer says, in the order it is decided. */
    enum Readiness {
        STOPPING("stopping", "shutting down"),
        PAUSED("paused", "this node was frozen and waits to be merged back into the cluster"),
        BACKUPS("backups", "Hazelcast does not report the cluster safe: backups are not all in place"),
        PARTITIONS("partitions", "partitions this node owns are being rebuilt"),
        READY("", "ready");

        /** The {@code reason} of a 503 body. */
        final String reason;
        /** What the log says when the node's answer changes to this one. */
        final String description;

        Readiness(String reason, String description) {
            this.reason = reason;
            this.description = description;
        }
    }

    private final BooleanSupplier paused;
    private final BooleanSupplier backupsInPlace;
    private final BooleanSupplier partitionsRebuilt;
    private volatile boolean stopping;
    /** The last answer a probe got, to log changes only. */
    private volatile Readiness answered = Readiness.READY;

    /**
     * @param paused            the node may have been declared dead during a freeze (never, for a node alone)
     * @param backupsInPlace    Hazelcast reported the cluster safe when last asked (always, for a node alone)
     * @param partitionsRebuilt every partition the node owns is rebuilt
     */
    Health(BooleanSupplier paused, BooleanSupplier backupsInPlace, BooleanSupplier partitionsRebuilt) {
        this.paused = paused;
        this.backupsInPlace = backupsInPlace;
        this.partitionsRebuilt = partitionsRebuilt;
    }

    /** Whether a GET of this path is a probe (and not an SQS request). */
    static boolean isProbe(String path) {
        return LIVE_PATH.equals(path) || READY_PATH.equals(path) || LEGACY_PATH.equals(path);
    }

    static Probe probeOf(String path) {
        return LIVE_PATH.equals(path) ? Probe.LIVE : Probe.READY;
    }

    boolean ready() {
        return readiness() == Readiness.READY;
    }

    Readiness readiness() {
        if (stopping) {
            return Readiness.STOPPING;
        }
        if (paused.getAsBoolean()) {
            return Readiness.PAUSED;
        }
        if (!backupsInPlace.getAsBoolean()) {
            return Readiness.BACKUPS;
        }
        return partitionsRebuilt.getAsBoolean() ? Readiness.READY : Readiness.PARTITIONS;
    }

    void stopping() {
        stopping = true;
    }

    /** Blocks the starting thread (never an event loop) until ready, or gives up after the timeout. */
    void awaitReady(long timeoutSeconds) {
        long deadline = System.nanoTime() + timeoutSeconds * 1_000_000_000L;
        while (!ready() && System.nanoTime() < deadline) {
            LockSupport.parkNanos(20_000_000L);
        }
        if (!ready()) {
            throw new IllegalStateException("node not ready after " + timeoutSeconds + " s");
        }
    }

    /** Answers a GET of a path for which {@link #isProbe} holds. */
    void respond(HttpServerRequest req) {
        if (probeOf(req.path()) == Probe.LIVE) {
            send(req, 200, "{\"status\":\"UP\"}");
            return;
        }
        Readiness now = readiness();
        if (now != answered) {
            answered = now;
            LOG.info("readiness probe: " + (now == Readiness.READY ? "" : "not ready, ") + now.description);
        }
        switch (now) {
            case READY -> send(req, 200, "{\"status\":\"UP\"}");
            case STOPPING -> send(req, 503, "{\"status\":\"DOWN\",\"reason\":\"stopping\",\"stopping\":true}");
            default -> send(req, 503, "{\"status\":\"DOWN\",\"reason\":\"" + now.reason + "\"}");
        }
    }

    private static void send(HttpServerRequest req, int status, String body) {
        req.response()
                .setStatusCode(status)
                .putHeader("Content-Type", "application/json")
                .putHeader("Cache-Control", "no-store")
                .end(body);
    }
}
