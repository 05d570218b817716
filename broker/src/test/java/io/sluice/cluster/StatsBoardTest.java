package io.sluice.cluster;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;

class StatsBoardTest {

    private static JsonObject counts(int visible) {
        return new JsonObject()
                .put(
                        "q",
                        new JsonArray()
                                .add(new JsonArray()
                                        .add(0)
                                        .add(visible)
                                        .add(0)
                                        .add(0)
                                        .add(0L)));
    }

    @Test
    void aChangeIsPublishedAtOnceTheSameCountsOnlyAsAHeartbeat() {
        StatsBoard.LastPublished last = new StatsBoard.LastPublished();
        assertTrue(last.due(counts(1), 0), "first counts");
        assertFalse(last.due(counts(1), 1_000), "unchanged, heartbeat not due");
        assertTrue(last.due(counts(2), 1_500), "changed");
        assertFalse(last.due(counts(2), 1_500 + StatsBoard.HEARTBEAT_MILLIS - 1), "unchanged, heartbeat not due");
        assertTrue(last.due(counts(2), 1_500 + StatsBoard.HEARTBEAT_MILLIS), "heartbeat");
    }

    @Test
    void aNodeWithoutPartitionsSaysSoOnce() {
        StatsBoard.LastPublished last = new StatsBoard.LastPublished();
        assertTrue(last.due(new JsonObject(), 0), "the first (empty) publication");
        assertFalse(last.due(new JsonObject(), 10_000), "nothing to keep fresh");
        assertTrue(last.due(counts(0), 11_000), "a partition arrived");
        assertTrue(last.due(new JsonObject(), 12_000), "it left: said once");
        assertFalse(last.due(new JsonObject(), 20_000));
    }
}
