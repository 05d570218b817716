package io.sluice.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** The copies a message becomes when it moves into a dead-letter queue and out of it again. */
class MovedMessageCopyTest {
    private static final long SENT = 1_000;
    private static final long NOW = 90_000;

    private static Delivery delivered(String group, String dedupId) {
        return new Delivery(
                "id-1",
                7,
                "body",
                Md5.ofBody("body"),
                Map.of("k", MessageAttributeValue.ofString("String", "v")),
                Map.of(),
                SENT,
                "sender",
                3,
                2_000,
                group,
                dedupId,
                group == null ? null : "42",
                null);
    }

    @Test
    void aStandardMessageKeepsItsEnqueueTimeInTheDeadLetterQueue() {
        Delivery out = MessageRecord.deadLettered(delivered(null, null), "arn:src", false, NOW)
                .deliver();
        assertEquals("id-1", out.messageId());
        assertEquals(SENT, out.sentTimestamp(), "retention in the DLQ counts from the original send");
        assertEquals("arn:src", out.deadLetterSourceArn());
        assertEquals(3, out.receiveCount(), "the receive count goes along");
        assertEquals(2_000, out.firstReceiveTimestamp());
        assertEquals(Map.of("k", MessageAttributeValue.ofString("String", "v")), out.attributes());
    }

    @Test
    void aFifoMessageIsEnqueuedAnewInTheDeadLetterQueueUnderItsIdAsDeduplicationId() {
        Delivery out = MessageRecord.deadLettered(delivered("g", "dd"), "arn:src.fifo", true, NOW)
                .deliver();
        assertEquals("id-1", out.messageId());
        assertEquals(NOW, out.sentTimestamp(), "the enqueue timestamp resets");
        assertEquals("id-1", out.deduplicationId(), "two messages that shared a deduplication id both stay in the DLQ");
        assertEquals("g", out.messageGroupId());
        assertEquals(3, out.receiveCount());
    }

    @Test
    void aRedrivenMessageIsEnqueuedAnewAndStartsAfresh() {
        for (Delivery d : new Delivery[] {delivered(null, null), delivered("g", "id-1")}) {
            Delivery out = MessageRecord.redriven(d, NOW).deliver();
            assertEquals("id-1", out.messageId());
            assertEquals("body", out.body());
            assertEquals(NOW, out.sentTimestamp(), "a redriven message is a new message for retention");
            assertEquals(0, out.receiveCount(), "not sent straight back to the DLQ");
            assertEquals(0, out.firstReceiveTimestamp());
            assertNull(out.deadLetterSourceArn());
            assertEquals(d.messageGroupId(), out.messageGroupId());
            assertEquals(d.deduplicationId(), out.deduplicationId());
        }
    }
}
