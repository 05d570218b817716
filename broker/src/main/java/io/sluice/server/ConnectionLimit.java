package io.sluice.server;

import io.vertx.core.http.HttpConnection;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Logger;

/**
 * The HTTP connections a node has open, over all its event loops. A connection past the limit
 * is closed as it opens, before it is read: clients see a reset and retry, as for any node that
 * cannot take them.
 */
final class ConnectionLimit {
    private static final Logger LOG = Logger.getLogger(ConnectionLimit.class.getName());
    private static final long WARN_EVERY_NANOS = 60_000_000_000L;

    private final int max;
    private final AtomicInteger open = new AtomicInteger();
    private final AtomicLong refused = new AtomicLong();
    private final AtomicLong lastWarning = new AtomicLong(System.nanoTime() - WARN_EVERY_NANOS);

    ConnectionLimit(int max) {
        this.max = max;
    }

    /** Counts a new connection until it closes, or closes it at once when the node has its maximum. */
    void admit(HttpConnection connection) {
        if (open.incrementAndGet() > max) {
            open.decrementAndGet();
            connection.close();
            warn();
            return;
        }
        connection.closeHandler(v -> open.decrementAndGet());
    }

    private void warn() {
        long total = refused.incrementAndGet();
        long now = System.nanoTime();
        long last = lastWarning.get();
        if (now - last >= WARN_EVERY_NANOS && lastWarning.compareAndSet(last, now)) {
            LOG.warning("HTTP connection limit reached (--max-connections " + max + "): " + total
                    + " connections refused so far");
        }
    }
}
