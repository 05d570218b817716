package io.sluice.cluster;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.core.IndeterminateOperationStateException;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;

/**
 * The receipt-handle key: one per cluster, and a node's start survives a write of it whose backup
 * did not acknowledge in time (a member joining meanwhile: a clean clone's CI run failed so).
 */
class ReceiptSecretTest {
    private static final byte[] MINE = {1, 2, 3};
    private static final byte[] THEIRS = {9, 9};

    /** A map whose first writes fail as Hazelcast fails a write whose backup missed its acknowledgement. */
    private static final class LateBackups extends ConcurrentHashMap<String, byte[]> {
        private int failuresLeft;
        private final boolean landed;
        private int writes;

        LateBackups(int failures, boolean landed) {
            this.failuresLeft = failures;
            this.landed = landed;
        }

        @Override
        public byte[] putIfAbsent(String key, byte[] value) {
            writes++;
            if (failuresLeft > 0) {
                failuresLeft--;
                if (landed) {
                    super.putIfAbsent(key, value);
                }
                throw new IndeterminateOperationStateException("backup acks missed");
            }
            return super.putIfAbsent(key, value);
        }
    }

    @Test
    void aWriteThatLandedWithoutItsAcknowledgementIsAskedAgainAndKept() {
        LateBackups secrets = new LateBackups(1, true);
        assertArrayEquals(MINE, ReceiptSecret.agree(secrets, MINE));
        assertArrayEquals(MINE, secrets.get(ReceiptSecret.KEY));
        assertEquals(2, secrets.writes);
    }

    @Test
    void aWriteThatDidNotLandIsMadeAgain() {
        LateBackups secrets = new LateBackups(2, false);
        assertArrayEquals(MINE, ReceiptSecret.agree(secrets, MINE));
        assertArrayEquals(MINE, secrets.get(ReceiptSecret.KEY));
    }

    @Test
    void anotherNodesKeyWins() {
        LateBackups secrets = new LateBackups(1, false);
        secrets.put(ReceiptSecret.KEY, THEIRS);
        assertArrayEquals(THEIRS, ReceiptSecret.agree(secrets, MINE));
    }

    @Test
    void theStartFailsWhenNoWriteIsEverAcknowledged() {
        LateBackups secrets = new LateBackups(Integer.MAX_VALUE, false);
        assertThrows(IndeterminateOperationStateException.class, () -> ReceiptSecret.agree(secrets, MINE));
        assertEquals(ReceiptSecret.ATTEMPTS, secrets.writes);
    }

    @Test
    void twoRealMembersShareOneKey() {
        try (InProcessCluster cluster = new InProcessCluster()) {
            HazelcastInstance a = cluster.member();
            HazelcastInstance b = cluster.member();
            byte[] first = ReceiptSecret.shared(a);
            assertEquals(32, first.length);
            assertArrayEquals(first, ReceiptSecret.shared(b));
        }
    }
}
