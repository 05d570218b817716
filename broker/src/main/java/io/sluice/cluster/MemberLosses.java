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
    /** When the last loss stops counting as recent ({@link System#nanoTime()} time). */
    private volatile long settledAt;

    MemberLosses(LongSupplier nanoTime) {
        this.nanoTime = nanoTime;
        this.settledAt = nanoTime.getAsLong();
    }

    /** Listens on {@code hz} from now on. */
    public static MemberLosses watch(HazelcastInstance hz) {
        MemberLosses losses = new MemberLosses(System::nanoTime);
        hz.getCluster().addMembershipListener(losses);
        return losses;
    }

    /** Whether a member left less than {@link #SETTLE_MILLIS} ago. */
    public boolean recent() {
        return nanoTime.getAsLong() - settledAt < 0;
    }

    @Override
    public void memberAdded(MembershipEvent event) {}

    @Override
    public void memberRemoved(MembershipEvent event) {
        settledAt = nanoTime.getAsLong() + SETTLE_MILLIS * 1_000_000L;
    }
}
