package io.sluice.cluster;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class MemberLossesTest {
    private final AtomicLong nanos = new AtomicLong(5_000_000_000L);
    private final MemberLosses losses = new MemberLosses(nanos::get);

    @Test
    void aLossIsRecentForTheSettlingTimeOnly() {
        assertFalse(losses.recent(), "no member has left");
        losses.memberAdded(null);
        assertFalse(losses.recent(), "a join is no loss");

        losses.memberRemoved(null);
        assertTrue(losses.recent());
        nanos.addAndGet(MemberLosses.SETTLE_MILLIS * 1_000_000L - 1);
        assertTrue(losses.recent(), "still settling just before the time is up");
        nanos.incrementAndGet();
        assertFalse(losses.recent(), "settled");

        losses.memberRemoved(null);
        assertTrue(losses.recent(), "a later loss starts the time again");
    }
}
