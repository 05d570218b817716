package io.sluice.cluster.store;

import com.hazelcast.cluster.Member;
import io.sluice.queue.DeliveryState;

/**
 * The forms the store's operations travel in, oldest first. A member reads its own form and
 * every older one, and announces the newest it reads as a member attribute; writers use the
 * newest form every member reads, so a member of the next release can join a cluster of this
 * one (a rolling upgrade) and the cluster moves to the newer form once no older member is left.
 */
public enum StoreFormat {
    /** Every change carries the whole record. */
    WHOLE_RECORDS,
    /** A change of delivery alone travels as its {@link DeliveryState}. */
    DELIVERIES,
    /**
     * As {@link #DELIVERIES}, and every commit and replica names the incarnation of the queue its
     * records belong to, so the records of a deleted queue never reach one created later under
     * the same name.
     */
    INCARNATIONS;

    /** The newest form this release reads and writes. */
    public static final StoreFormat CURRENT = INCARNATIONS;

    /** The member attribute that names the newest form a member reads, by its number (1 for the oldest). */
    public static final String ATTRIBUTE = "sluice.store";
    /** What the release that introduced {@link #DELIVERIES} announced instead of {@link #ATTRIBUTE}. */
    static final String DELIVERIES_ATTRIBUTE = "sluice.deliveries";

    /** The number {@link #ATTRIBUTE} carries. */
    int number() {
        return ordinal() + 1;
    }

    boolean carriesDeliveries() {
        return compareTo(DELIVERIES) >= 0;
    }

    boolean carriesIncarnation() {
        return compareTo(INCARNATIONS) >= 0;
    }

    /** The newest form {@code member} reads; a member newer than this release reads this release's newest. */
    static StoreFormat readBy(Member member) {
        String number = member.getAttribute(ATTRIBUTE);
        if (number != null) {
            try {
                int n = Integer.parseInt(number);
                return n >= CURRENT.number() ? CURRENT : values()[Math.max(n, 1) - 1];
            } catch (NumberFormatException e) {
                return WHOLE_RECORDS;
            }
        }
        return member.getAttribute(DELIVERIES_ATTRIBUTE) != null ? DELIVERIES : WHOLE_RECORDS;
    }
}
