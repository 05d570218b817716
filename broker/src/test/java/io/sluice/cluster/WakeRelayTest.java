package io.sluice.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.sluice.partition.VisibilityListener;
import io.vertx.core.MultiMap;
import org.junit.jupiter.api.Test;

/** The partition a relayed wake names; anything unreadable means "look at every partition". */
class WakeRelayTest {
    private static MultiMap headers(String partition) {
        MultiMap h = MultiMap.caseInsensitiveMultiMap().add("origin", "node-a");
        return partition == null ? h : h.add("partition", partition);
    }

    @Test
    void aWakeNamesItsPartitionOrEveryPartition() {
        assertEquals(3, WakeRelay.partitionOf(headers("3")));
        assertEquals(0, WakeRelay.partitionOf(headers("0")));
        assertEquals(
                VisibilityListener.ANY_PARTITION,
                WakeRelay.partitionOf(headers(null)),
                "from a node that does not say");
        assertEquals(VisibilityListener.ANY_PARTITION, WakeRelay.partitionOf(headers("x")));
        assertEquals(VisibilityListener.ANY_PARTITION, WakeRelay.partitionOf(headers("-7")));
    }
}
