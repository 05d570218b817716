package io.sluice.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import io.sluice.config.ClusterSettings;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** What the ownership lookups keep per queue, on a real member: nothing for deleted queues. */
class HazelcastOwnershipTest {
    private final HazelcastInstance hz =
            Hazelcast.newHazelcastInstance(HazelcastSetup.config(new ClusterSettings(null, "127.0.0.1", 0, 1)));

    @AfterEach
    void shutdown() {
        hz.shutdown();
    }

    @Test
    void aDeletedQueueKeepsNoEntryEvenWhenItsPartitionsAreAskedForWhileErased() {
        Set<String> existing = ConcurrentHashMap.newKeySet();
        existing.add("live");
        existing.add("deleted");
        HazelcastOwnership ownership = new HazelcastOwnership(hz.getPartitionService());
        ownership.cachesOnly(existing::contains);

        assertTrue(ownership.ownsLocally("live", 0));
        assertTrue(ownership.ownsLocally("deleted", 3));
        assertEquals(2, ownership.cachedQueues());

        existing.remove("deleted");
        ownership.forget("deleted");
        // The erasing partition's commit and its ownership checks, after the deletion:
        assertTrue(ownership.ownsLocally("deleted", 3));
        assertEquals(
                hz.getPartitionService().getPartition("deleted#3").getPartitionId(),
                ownership.partitionId("deleted", 3),
                "the same Hazelcast partition as the queue partition's key");
        assertEquals(1, ownership.cachedQueues(), "only the existing queue is kept");
    }
}
