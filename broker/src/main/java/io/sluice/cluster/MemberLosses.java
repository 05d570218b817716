package io.sluice.cluster;

import com.hazelcast.cluster.MembershipEvent;
import com.hazelcast.cluster.MembershipListener;
import com.hazelcast.core.HazelcastInstance;
import java.util.function.LongSupplier;

/**
 * Remembers when this node last saw a member leave the cluster (crashed, frozen past the
 * heartbeat timeout, or shut down). Partitions gained within {@link #SETTLE_MILLIS} after that
 * may have been promoted from a backup while the members' tables still differ, so their rebuild
 * waits; partitions that migrate to this node otherwise (a node joined) are rebuilt at once.
 */
public final class MemberLosses implements MembershipListener {
    /** How long after a loss hand-overs count as unsettled: promotions and replica syncs take a few seconds. */
    static final long SETTLE_MILLIS = 10_000;

    private final LongSupplier nanoTime;
    /** When the last member left ({@link System#nanoTime()}), or 0 before any did. */
    private volatile long lastLoss;

    MemberLosses(LongSupplier nanoTime) {
        this.nanoTime = nanoTime;
    }

    /** Listens on {@code hz} from now on. */
    public static MemberLosses watch(HazelcastInstance hz) {
        MemberLosses losses = new MemberLosses(System::nanoTime);
        hz.getCluster().addMembershipListener(losses);
        return losses;
    }

    /** Whether a member left less than {@link #SETTLE_MILLIS} ago. */
    public boolean recent() {
        long at = lastLoss;
        return at != 0 && nanoTime.getAsLong() - at < SETTLE_MILLIS * 1_000_000L;
    }

    @Override
    public void memberAdded(MembershipEvent event) {}

    @Override
    public void memberRemoved(MembershipEvent event) {
        long now = nanoTime.getAsLong();
        // 0 means "never": a clock that reads exactly 0 counts as 1 ns later.
        lastLoss = now == 0 ? 1 : now;
    }
}
