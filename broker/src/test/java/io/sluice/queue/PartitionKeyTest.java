package io.sluice.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class PartitionKeyTest {
    @Test
    void textIsQueueHashIndexAndParsesBack() {
        PartitionKey key = new PartitionKey("orders-1.fifo", 12);
        assertEquals("orders-1.fifo#12", key.toString(), "storage placement hashes this text: it must not change");
        assertEquals(key, PartitionKey.parse(key.toString()));
        assertEquals(new PartitionKey("q", 0), PartitionKey.parse("q#0"));
    }

    @Test
    void malformedTextIsRefused() {
        for (String bad : new String[] {"q", "#1", "q#", "q#x", "q#1x", ""}) {
            assertThrows(IllegalArgumentException.class, () -> PartitionKey.parse(bad), bad);
        }
        assertThrows(IllegalArgumentException.class, () -> new PartitionKey("", 0));
    }
}
