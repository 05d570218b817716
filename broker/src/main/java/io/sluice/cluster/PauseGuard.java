package io.sluice.cluster;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.core.LifecycleEvent;
import io.sluice.partition.Ownership;
import io.sluice.partition.PartitionDirectory;
import io.vertx.core.Vertx;
import java.util.function.LongSupplier;
import java.util.logging.Logger;

/**
 * Keeps a node that was frozen (SIGSTOP, a VM stall, a very long GC pause) from acting on what
 * it remembers. After a pause long enough for the others to have declared it dead, they own its
 * partitions now, and a write it acknowledged on its own would be discarded when the cluster
 * heals. So it drops the partitions it held and owns nothing until Hazelcast has merged it back
 * (or, if nobody noticed the pause, until a settling time has passed); its clients get retryable
 * errors meanwhile instead of acknowledgements that could be lost.
 */
public final class PauseGuard implements Ownership {
    private static final Logger LOG = Logger.getLogger(PauseGuard.class.getName());
    static final long CHECK_MILLIS = 250;
    static final long SETTLE_MILLIS = 30_000;

    private final Ownership delegate;
    private final long pauseThresholdNanos;
    private final LongSupplier nanoTime;
    private volatile long suspectUntilNanos;
    /** When the periodic check last ran; right after a freeze it is far behind the clock. */
    private volatile long lastCheck;

    /** @param heartbeatTimeoutSeconds Hazelcast's max.no.heartbeat: a pause near it may have cost the membership */
    public PauseGuard(Ownership delegate, long heartbeatTimeoutSeconds) {
        this(delegate, heartbeatTimeoutSeconds, System::nanoTime);
    }

    /** @param nanoTime the monotonic time source, {@link System#nanoTime()} outside tests */
    PauseGuard(Ownership delegate, long heartbeatTimeoutSeconds, LongSupplier nanoTime) {
        this.delegate = delegate;
        this.pauseThresholdNanos = heartbeatTimeoutSeconds * 800_000_000L;
        this.nanoTime = nanoTime;
        this.lastCheck = nanoTime.getAsLong();
    }

    public void start(Vertx vertx, HazelcastInstance hz, PartitionDirectory directory) {
        vertx.setPeriodic(CHECK_MILLIS, id -> check(directory));
        hz.getLifecycleService().addLifecycleListener(e -> onLifecycle(e.getState(), directory));
    }

    /** The periodic check: a long gap since the last one means this node was frozen meanwhile. */
    void check(PartitionDirectory directory) {
        long now = nanoTime.getAsLong();
        long gap = now - lastCheck;
        lastCheck = now;
        if (gap > pauseThresholdNanos) {
            LOG.warning("this node was paused for " + gap / 1_000_000
                    + " ms; serving nothing until the cluster has settled");
            suspectUntilNanos = now + SETTLE_MILLIS * 1_000_000L;
            directory.dropAll(true);
        } else if (suspectUntilNanos != 0 && now > suspectUntilNanos) {
            settled(directory, "settling time over");
        }
    }

    void onLifecycle(LifecycleEvent.LifecycleState state, PartitionDirectory directory) {
        if (state == LifecycleEvent.LifecycleState.MERGED && suspectUntilNanos != 0) {
            settled(directory, "merged back into the cluster");
        }
    }

    private void settled(PartitionDirectory directory, String why) {
        suspectUntilNanos = 0;
        // Whatever was loaded meanwhile is rebuilt from the merged storage.
        directory.dropAll(true);
        LOG.info("serving again: " + why);
    }

    /**
     * While true the node is not ready: it may have been declared dead and not merged back yet. As
     * with ownership, that holds from the moment a freeze ends, before the periodic check notices
     * it: a readiness probe queued during the freeze once answered 200 in between.
     */
    public boolean suspect() {
        return suspectUntilNanos != 0 || nanoTime.getAsLong() - lastCheck >= pauseThresholdNanos;
    }

    @Override
    public boolean ownsLocally(String queueName, int partition) {
        // Also refuse in the moment after a freeze, before the periodic check has noticed it:
        // requests queued during the freeze run first, and must not be acknowledged.
        return !suspect() && delegate.ownsLocally(queueName, partition);
    }
}
