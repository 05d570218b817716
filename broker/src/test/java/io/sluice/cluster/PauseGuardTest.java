package io.sluice.cluster;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.core.LifecycleEvent.LifecycleState;
import io.sluice.config.ClusterSettings;
import io.sluice.partition.Ownership;
import io.sluice.partition.PartitionDirectory;
import io.sluice.partition.PartitionLoops;
import io.sluice.partition.PartitionMoved;
import io.sluice.queue.Clock;
import io.sluice.queue.CommitPort;
import io.sluice.queue.InMemoryQueueRegistry;
import io.sluice.queue.PartitionRequest;
import io.sluice.queue.QueueMeta;
import io.sluice.queue.ReceiveOutcome;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The pause guard of a node: a gap between two of its periodic checks longer than most of the
 * heartbeat timeout means the node was frozen, and may have been declared dead meanwhile; it
 * then owns nothing (and drops what it ran) until Hazelcast merged it back or a settling time
 * passed. The guard's monotonic clock is moved by hand; the partitions it drops are real ones
 * on real Vert.x loops.
 */
class PauseGuardTest {
    private static final long HEARTBEAT_TIMEOUT_SECONDS = 10;
    /** 80 % of the heartbeat timeout: a pause this long may have cost the membership. */
    private static final long THRESHOLD_NANOS = HEARTBEAT_TIMEOUT_SECONDS * 800_000_000L;

    private static final long CHECK_NANOS = TimeUnit.MILLISECONDS.toNanos(PauseGuard.CHECK_MILLIS);
    private static final String QUEUE = "guarded";

    private final Vertx vertx = Vertx.vertx();
    private final AtomicLong nanos = new AtomicLong(5_000_000_000L);
    private final AtomicBoolean delegateOwns = new AtomicBoolean(true);
    private final PauseGuard guard =
            new PauseGuard((queue, partition) -> delegateOwns.get(), HEARTBEAT_TIMEOUT_SECONDS, nanos::get);
    private final PartitionDirectory directory = directory(guard);

    private PartitionDirectory directory(Ownership ownership) {
        InMemoryQueueRegistry registry = new InMemoryQueueRegistry(Clock.SYSTEM);
        long now = System.currentTimeMillis();
        registry.create(new QueueMeta(QUEUE, false, 1, now, now, Map.of(), Map.of(), 0))
                .toCompletableFuture()
                .join();
        return new PartitionDirectory(
                PartitionLoops.deploy(vertx, 1, Clock.SYSTEM).await(),
                CommitPort.inMemory(),
                Clock.SYSTEM,
                registry,
                (queue, partition) -> {},
                ownership);
    }

    @AfterEach
    void close() throws Exception {
        join(vertx.close());
    }

    private static <T> T join(Future<T> f) throws Exception {
        return f.toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    private Future<ReceiveOutcome> receive() {
        return directory.execute(QUEUE, 0, new PartitionRequest.Receive(1, 30_000));
    }

    /** Checks at the usual pace for {@code nanos} of guard time. */
    private void checksFor(long span) {
        for (long passed = 0; passed < span; passed += CHECK_NANOS) {
            nanos.addAndGet(CHECK_NANOS);
            guard.check(directory);
        }
    }

    /** A partition running here, as before a pause. */
    private void running() throws Exception {
        join(receive());
        assertTrue(directory.isStarted(QUEUE, 0));
    }

    private void paused(long gap) {
        nanos.addAndGet(gap);
        guard.check(directory);
    }

    @Test
    void checksAtTheUsualPaceChangeNothing() throws Exception {
        running();
        checksFor(TimeUnit.MINUTES.toNanos(2));

        assertFalse(guard.suspect());
        assertTrue(guard.ownsLocally(QUEUE, 0));
        assertTrue(directory.isStarted(QUEUE, 0), "nothing dropped");
    }

    @Test
    void aGapUpToTheThresholdIsNoPause() throws Exception {
        running();
        paused(THRESHOLD_NANOS);

        assertFalse(guard.suspect());
        assertTrue(guard.ownsLocally(QUEUE, 0));
        assertTrue(directory.isStarted(QUEUE, 0));
    }

    @Test
    void rightAfterAFreezeNothingIsOwnedEvenBeforeTheCheckNoticedIt() {
        // Requests queued during the freeze run before the periodic check: they must not be served.
        nanos.addAndGet(THRESHOLD_NANOS - 1);
        assertTrue(guard.ownsLocally(QUEUE, 0));
        assertFalse(guard.suspect());
        nanos.addAndGet(1);
        assertFalse(guard.ownsLocally(QUEUE, 0));
        assertTrue(guard.suspect(), "a readiness probe queued during the freeze must not answer 200");
    }

    @Test
    void aLongerGapDropsEveryPartitionAndServesNothing() throws Exception {
        running();
        paused(THRESHOLD_NANOS + 1);

        assertTrue(guard.suspect(), "not ready");
        assertFalse(guard.ownsLocally(QUEUE, 0));
        assertFalse(directory.isStarted(QUEUE, 0), "what it ran is dropped: its memory may be stale");
        ExecutionException refused = assertThrows(ExecutionException.class, () -> join(receive()));
        assertInstanceOf(PartitionMoved.class, refused.getCause(), "the router looks for the owner again");
    }

    @Test
    void itServesAgainOnceTheSettlingTimeHasPassed() throws Exception {
        running();
        paused(THRESHOLD_NANOS + 1);

        checksFor(TimeUnit.MILLISECONDS.toNanos(PauseGuard.SETTLE_MILLIS) - CHECK_NANOS);
        assertTrue(guard.suspect(), "still settling");
        assertFalse(guard.ownsLocally(QUEUE, 0));
        checksFor(2 * CHECK_NANOS);

        assertFalse(guard.suspect());
        assertTrue(guard.ownsLocally(QUEUE, 0));
        join(receive());
        assertTrue(directory.isStarted(QUEUE, 0), "rebuilt from storage when needed");
    }

    @Test
    void itServesAgainOnceMergedBackIntoTheCluster() throws Exception {
        running();
        paused(THRESHOLD_NANOS + 1);
        for (LifecycleState other : LifecycleState.values()) {
            if (other != LifecycleState.MERGED) {
                guard.onLifecycle(other, directory);
            }
        }
        assertTrue(guard.suspect(), "only a merge ends the suspicion early");

        guard.onLifecycle(LifecycleState.MERGED, directory);

        assertFalse(guard.suspect());
        assertTrue(guard.ownsLocally(QUEUE, 0));
        join(receive());
    }

    @Test
    void aMergeWithoutAPauseDropsNothing() throws Exception {
        running();
        guard.onLifecycle(LifecycleState.MERGED, directory);
        assertTrue(directory.isStarted(QUEUE, 0));
    }

    @Test
    void whatTheGuardedOwnershipRefusesStaysRefused() {
        delegateOwns.set(false);
        assertFalse(guard.ownsLocally(QUEUE, 0));
    }

    /** Started as a node starts it: its periodic check on an event loop notices a freeze by itself. */
    @Test
    void theStartedGuardNoticesAFreezeOnItsOwn() throws Exception {
        HazelcastInstance hz =
                Hazelcast.newHazelcastInstance(HazelcastSetup.config(new ClusterSettings(null, "127.0.0.1", 0, 1)));
        try {
            running();
            guard.start(vertx, hz, directory);
            nanos.addAndGet(THRESHOLD_NANOS + 1);

            await("the periodic check noticed the pause and dropped the partitions")
                    .atMost(Duration.ofSeconds(10))
                    .until(() -> !directory.isStarted(QUEUE, 0));
            assertTrue(guard.suspect());
        } finally {
            hz.shutdown();
        }
    }
}
