package io.sluice.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import io.sluice.config.ClusterSettings;
import io.sluice.queue.Clock;
import io.sluice.queue.QueueMeta;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The registry's writes against a real member: updates that must not be lost or refused. */
class HazelcastQueueRegistryTest {
    private HazelcastInstance hz;
    private ExecutorService blocking;
    private HazelcastQueueRegistry registry;

    @BeforeEach
    void member() {
        hz = Hazelcast.newHazelcastInstance(HazelcastSetup.config(new ClusterSettings(null, "127.0.0.1", 0, 1)));
        blocking = Executors.newFixedThreadPool(8);
        registry = new HazelcastQueueRegistry(
                hz.getMap(HazelcastSetup.QUEUES_MAP),
                hz.getMap(HazelcastSetup.DELETED_QUEUES_MAP),
                Clock.SYSTEM,
                blocking,
                name -> {});
        registry.create(new QueueMeta("q", false, 2, 0, 0, Map.of(), Map.of(), 0))
                .toCompletableFuture()
                .join();
    }

    @AfterEach
    void shutdown() {
        blocking.shutdownNow();
        hz.shutdown();
    }

    private QueueMeta tag(String key, String value) {
        return tag(Map.of(key, value));
    }

    private QueueMeta tag(Map<String, String> added) {
        return registry.update("q", q -> {
                    Map<String, String> tags = new HashMap<>(q.tags());
                    tags.putAll(added);
                    return new QueueMeta(
                            q.name(),
                            q.fifo(),
                            q.partitions(),
                            q.createdMillis(),
                            q.lastModifiedMillis(),
                            q.attributes(),
                            tags,
                            q.purgedAt(),
                            q.redrivePolicy());
                })
                .toCompletableFuture()
                .join();
    }

    /**
     * A tag key that UTF-8 cannot carry (a lone surrogate, as a hostile request's bytes can
     * decode to) is stored sorted after "z" but comes back from the map as '?', which sorts
     * before it: the bytes of the value read back differ from the bytes stored. A compare-and-set update then never
     * succeeded, and the fuzz test's next TagQueue got ServiceUnavailable.
     */
    @Test
    void aQueueWhoseTagsDoNotRoundTripCanStillBeChanged() {
        tag(Map.of("\uD800", "v", "z", "v"));
        QueueMeta last = tag("team", "a");
        assertEquals("a", last.tags().get("team"));
        assertEquals("a", registry.find("q").tags().get("team"));
    }

    @Test
    void concurrentUpdatesAreAllApplied() {
        List<CompletableFuture<QueueMeta>> updates = IntStream.range(0, 40)
                .mapToObj(i -> CompletableFuture.supplyAsync(() -> tag("k" + i, "v")))
                .toList();
        updates.forEach(CompletableFuture::join);
        QueueMeta stored =
                hz.<String, QueueMeta>getMap(HazelcastSetup.QUEUES_MAP).get("q");
        assertEquals(
                40,
                stored.tags().size(),
                "every update applied: " + stored.tags().keySet());
        assertTrue(IntStream.range(0, 40).allMatch(i -> stored.tags().containsKey("k" + i)));
    }
}
