package io.sluice.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class StandardReadySetTest {
    private final StandardReadySet set = new StandardReadySet();
    private int ids;

    private MessageRecord visible() {
        MessageRecord r = new MessageRecord("m" + (++ids), "b", Map.of(), Map.of(), 0, "sender", null, null, null);
        r.state = MessageState.VISIBLE;
        set.becameVisible(r);
        return r;
    }

    @Test
    void messagesRemovedWhileNobodyReceivedAreDroppedOnceTheyOutnumberTheReceivableOnes() {
        List<MessageRecord> expired = new ArrayList<>();
        for (int i = 0; i < 10_000; i++) {
            expired.add(visible());
        }
        MessageRecord live = visible();
        expired.forEach(r -> r.removed = true);
        set.trim(1);
        assertEquals(1, set.size(), "only the receivable message is held");
        assertSame(live, set.next());
        assertNull(set.next());
    }

    @Test
    void aFewStaleEntriesAreLeftForTheNextReceiveToSkip() {
        MessageRecord gone = visible();
        MessageRecord live = visible();
        gone.removed = true;
        set.trim(1);
        assertEquals(2, set.size(), "no compaction for a handful of entries");
        assertSame(live, set.next());
    }

    @Test
    void aMessageVisibleAgainKeepsOneEntryInItsFirstPlaceAndTheOrderOfTheOthersStays() {
        List<MessageRecord> all = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            all.add(visible());
        }
        MessageRecord twice = all.get(3);
        for (int i = 0; i < 200; i++) {
            // Taken in flight by ChangeMessageVisibility and visible again: one more entry each time.
            twice.state = MessageState.IN_FLIGHT;
            twice.state = MessageState.VISIBLE;
            set.becameVisible(twice);
        }
        set.trim(10);
        assertEquals(10, set.size());
        List<MessageRecord> order = new ArrayList<>();
        MessageRecord r;
        while ((r = set.next()) != null) {
            order.add(r);
            r.state = MessageState.IN_FLIGHT;
        }
        assertEquals(all, order);
        assertEquals(0, set.size());
    }
}
