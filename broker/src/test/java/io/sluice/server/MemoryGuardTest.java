package io.sluice.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.queue.ErrorCode;
import io.sluice.queue.SqsException;
import org.junit.jupiter.api.Test;

class MemoryGuardTest {
    private final MemoryGuard guard = new MemoryGuard(1_000);

    @Test
    void refusesAboveNinetyPercentAndAcceptsAgainBelowEighty() {
        guard.observe(899);
        assertFalse(guard.full());
        guard.checkRoom();
        guard.observe(900);
        assertTrue(guard.full());
        SqsException e = assertThrows(SqsException.class, guard::checkRoom);
        assertEquals(ErrorCode.SERVICE_UNAVAILABLE, e.code());
        // Between the two marks it stays as it was: no flapping around one threshold.
        guard.observe(850);
        assertTrue(guard.full());
        guard.observe(799);
        assertFalse(guard.full());
        guard.observe(850);
        assertFalse(guard.full());
    }
}
