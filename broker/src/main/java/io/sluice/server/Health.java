package io.sluice.server;

import io.vertx.core.http.HttpServerRequest;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * GET /health: 200 when the node is ready (joined, the cluster's backups in place, every
 * partition it owns rebuilt), 503 while it starts, rebalances or stops.
 */
final class Health {
    private final BooleanSupplier ready;
    private volatile boolean stopping;

    Health(BooleanSupplier ready) {
        this.ready = ready;
    }

    boolean ready() {
        return !stopping && ready.getAsBoolean();
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

    void respond(HttpServerRequest req) {
        boolean ok = ready();
        req.response()
                .setStatusCode(ok ? 200 : 503)
                .putHeader("Content-Type", "application/json")
                .end(ok ? "{\"status\":\"UP\"}" : "{\"status\":\"DOWN\"}");
    }
}
