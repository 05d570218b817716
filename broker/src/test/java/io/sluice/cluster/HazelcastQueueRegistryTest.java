package io.sluice.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hazelcast.config.Config;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.map.IMap;
import com.hazelcast.map.listener.EntryAddedListener;
import io.sluice.config.ClusterSettings;
import io.sluice.queue.Clock;
import io.sluice.queue.ErrorCode;
import io.sluice.queue.QueueMeta;
import io.sluice.queue.QueueRegistry;
import io.sluice.queue.SqsException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.IntStream;
import org.awaitility.Awaitility;
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
        Config config = HazelcastSetup.config(new ClusterSettings(null, "127.0.0.1", 0, 1));
        // One event thread: the map's events are delivered one after the other, whatever their key.
        config.setProperty("hazelcast.event.thread.count", "1");
        hz = Hazelcast.newHazelcastInstance(config);
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

    /**
     * A deletion reserves the name for the cooldown: asked with a shorter span, only a deletion
     * within it counts; a name never deleted, or one still in use, does not.
     */
    @Test
    void tellsWhetherANameWasDeletedWithinASpan() throws Exception {
        registry.delete("q").toCompletableFuture().get(10, TimeUnit.SECONDS);

        assertTrue(registry.deletedWithin("q", 45_000).toCompletableFuture().get(10, TimeUnit.SECONDS));
        assertFalse(registry.deletedWithin("q", 0).toCompletableFuture().get(10, TimeUnit.SECONDS));
        assertFalse(
                registry.deletedWithin("never", 45_000).toCompletableFuture().get(10, TimeUnit.SECONDS));
    }

    /**
     * A queue another node created is in the map before this node's copy hears of it (the map's
     * event is on its way): a request naming it waits for the news instead of being told the queue
     * does not exist. The member has one event thread, held up by a listener on an earlier event.
     */
    @Test
    void aQueueInTheMapButNotYetHeardOfIsWaitedFor() throws Exception {
        IMap<String, QueueMeta> map = hz.getMap(HazelcastSetup.QUEUES_MAP);
        HazelcastQueueRegistry late = secondRegistry();
        CountDownLatch release = holdTheEventThread(map);
        map.put("late", new QueueMeta("late", false, 2, 0, 0, Map.of(), Map.of(), 0));
        assertNull(late.find("late"), "not heard of yet");
        CompletableFuture<Boolean> known = late.awaitKnown("late").toCompletableFuture();
        assertFalse(known.isDone(), "waits for the news while the map has the queue");

        assertFalse(late.awaitKnown("never").toCompletableFuture().get(10, TimeUnit.SECONDS), "no such queue: no wait");

        release.countDown();
        assertTrue(known.get(10, TimeUnit.SECONDS));
        assertEquals("late", late.find("late").name());
    }

    /**
     * The wait for news is bounded: when the map's event does not come within
     * {@link QueueRegistry#NEWS_WAIT_MILLIS} (here the only event thread stays held), the request gets
     * its answer (false: not known) instead of hanging.
     */
    @Test
    void newsThatDoesNotComeIsWaitedForOnlySoLong() throws Exception {
        IMap<String, QueueMeta> map = hz.getMap(HazelcastSetup.QUEUES_MAP);
        HazelcastQueueRegistry late = secondRegistry();
        CountDownLatch release = holdTheEventThread(map);
        try {
            map.put("late", new QueueMeta("late", false, 2, 0, 0, Map.of(), Map.of(), 0));
            CompletableFuture<Boolean> known = late.awaitKnown("late").toCompletableFuture();
            assertFalse(known.isDone(), "waits while the map has the queue");
            assertFalse(known.get(10, TimeUnit.SECONDS), "given up on while the news is still held");
        } finally {
            release.countDown();
        }
    }

    /** Another copy of the registry on the same member: it hears of the map's changes by their events. */
    private HazelcastQueueRegistry secondRegistry() {
        return new HazelcastQueueRegistry(
                hz.getMap(HazelcastSetup.QUEUES_MAP),
                hz.getMap(HazelcastSetup.DELETED_QUEUES_MAP),
                Clock.SYSTEM,
                blocking,
                n -> {});
    }

    /**
     * Holds the member's one event thread in a listener of the queues map until the latch returned
     * is counted down (at most 30 s): news of what the map gets meanwhile waits.
     */
    private static CountDownLatch holdTheEventThread(IMap<String, QueueMeta> map) throws InterruptedException {
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch held = new CountDownLatch(1);
        map.addEntryListener(
                (EntryAddedListener<String, QueueMeta>) e -> {
                    if (e.getKey().equals("blocker")) {
                        held.countDown();
                        try {
                            release.await(30, TimeUnit.SECONDS);
                        } catch (InterruptedException ie) {
                            Thread.currentThread().interrupt();
                        }
                    }
                },
                true);
        map.put("blocker", new QueueMeta("blocker", false, 2, 0, 0, Map.of(), Map.of(), 0));
        assertTrue(held.await(10, TimeUnit.SECONDS), "the event thread is held");
        return release;
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
    /**
     * A creation must not slip in while a deletion is under way: with the deletion held inside its
     * write of the name's deleted-recently marker, a creation of the name that has reached the maps
     * (the lock, or the marker's read) is refused once the deletion ends, as SQS refuses it for 60
     * seconds. Removed before its marker was written, the queue was created in between (the
     * creation read no marker and inserted into an empty slot) and could lose what it was sent to
     * the deletion's news.
     */
    @Test
    void aCreationRacingADeletionIsRefusedNotSlippedIn() throws Exception {
        CountDownLatch writingMarker = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicBoolean creationReachedTheMaps = new AtomicBoolean();
        IMap<String, Long> deleted = intercepted(hz.getMap(HazelcastSetup.DELETED_QUEUES_MAP), method -> {
            if (method.equals("put")) {
                writingMarker.countDown();
                assertTrue(release.await(30, TimeUnit.SECONDS));
            } else if (method.equals("get") && writingMarker.getCount() == 0) {
                creationReachedTheMaps.set(true);
            }
        });
        IMap<String, QueueMeta> queues = intercepted(hz.getMap(HazelcastSetup.QUEUES_MAP), method -> {
            if (method.equals("tryLock") && writingMarker.getCount() == 0) {
                creationReachedTheMaps.set(true);
            }
        });
        HazelcastQueueRegistry racing = new HazelcastQueueRegistry(queues, deleted, Clock.SYSTEM, blocking, q -> {});
        CompletableFuture<Void> deletion = racing.delete("q").toCompletableFuture();
        assertTrue(writingMarker.await(30, TimeUnit.SECONDS), "the deletion reached its marker");

        CompletableFuture<QueueMeta> creation = racing.create(new QueueMeta("q", false, 2, 0, 0, Map.of(), Map.of(), 0))
                .toCompletableFuture();
        Awaitility.await().atMost(30, TimeUnit.SECONDS).untilTrue(creationReachedTheMaps);
        release.countDown();
        deletion.join();
        ExecutionException refused = assertThrows(ExecutionException.class, () -> creation.get(30, TimeUnit.SECONDS));
        assertEquals(ErrorCode.QUEUE_DELETED_RECENTLY, ((SqsException) refused.getCause()).code());
        assertNull(hz.getMap(HazelcastSetup.QUEUES_MAP).get("q"), "no queue of the name after the deletion");
    }

    /** The map, with {@code before} told the name of every method called on it before the call runs. */
    @SuppressWarnings("unchecked")
    private static <K, V> IMap<K, V> intercepted(IMap<K, V> map, Interception before) {
        return (IMap<K, V>) Proxy.newProxyInstance(
                IMap.class.getClassLoader(), new Class<?>[] {IMap.class}, (proxy, method, args) -> {
                    before.call(method.getName());
                    try {
                        return method.invoke(map, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }

    @FunctionalInterface
    private interface Interception {
        void call(String method) throws Exception;
    }
}
