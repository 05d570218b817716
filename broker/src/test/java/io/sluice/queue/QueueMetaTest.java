package io.sluice.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class QueueMetaTest {

    @Test
    void aDeletedQueueKeepsItsNameItsFifoRuleAndThePartitionsToErase() {
        QueueMeta fifo = QueueMeta.deleted("orders.fifo", 8);
        assertEquals("orders.fifo", fifo.name());
        assertTrue(fifo.fifo());
        assertEquals(8, fifo.partitions());

        QueueMeta standard = QueueMeta.deleted("orders", 0);
        assertFalse(standard.fifo());
        assertEquals(0, standard.partitions());
    }
}
