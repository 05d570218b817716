package io.sluice.cluster;

import com.hazelcast.core.EntryEvent;
import com.hazelcast.map.IMap;
import com.hazelcast.map.listener.EntryAddedListener;
import com.hazelcast.map.listener.EntryRemovedListener;
import com.hazelcast.map.listener.EntryUpdatedListener;
import com.hazelcast.splitbrainprotection.SplitBrainProtectionException;
import io.sluice.queue.Clock;
import io.sluice.queue.ErrorCode;
import io.sluice.queue.QueueMeta;
import io.sluice.queue.QueueRegistry;
import io.sluice.queue.SqsException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

/**
 * The queues of the cluster, in a replicated Hazelcast map, read from a local copy that map
 * listeners keep current. Writes run on a worker (Hazelcast's conditional writes are blocking
 * calls) and resolve races between nodes: creation, changes and deletion under the queue's
 * lock.
 */
public final class HazelcastQueueRegistry implements QueueRegistry {
    /** How long an update waits for another node's update of the same queue. */
    private static final long LOCK_WAIT_SECONDS = 5;
    /** The lock is released after this long whatever happens to its holder. */
    private static final long LOCK_LEASE_SECONDS = 30;

    private final IMap<String, QueueMeta> queues;
    private final IMap<String, Long> deleted;
    private final Clock clock;
    private final Executor blocking;
    private final ConcurrentSkipListMap<String, QueueMeta> cache = new ConcurrentSkipListMap<>();
    /** Requests waiting for news of a queue the map has and the cache not yet, by name. */
    private final ConcurrentHashMap<String, CompletableFuture<Boolean>> arriving = new ConcurrentHashMap<>();

    private final Consumer<QueueMeta> onDeleted;

    /**
     * @param onDeleted told (on a Hazelcast thread) when any node deleted a queue, with the queue as
     *     it was (its partition count unknown, 0, in the unlikely case that neither the event nor
     *     this node's copy had it)
     */
    public HazelcastQueueRegistry(
            IMap<String, QueueMeta> queues,
            IMap<String, Long> deleted,
            Clock clock,
            Executor blocking,
            Consumer<QueueMeta> onDeleted) {
        this.queues = queues;
        this.deleted = deleted;
        this.clock = clock;
        this.blocking = blocking;
        this.onDeleted = onDeleted;
        queues.addEntryListener(new Listener(), true);
        queues.forEach(cache::put);
    }

    private final class Listener
            implements EntryAddedListener<String, QueueMeta>,
                    EntryUpdatedListener<String, QueueMeta>,
                    EntryRemovedListener<String, QueueMeta> {
        @Override
        public void entryAdded(EntryEvent<String, QueueMeta> e) {
            cache.put(e.getKey(), e.getValue());
            settle(e.getKey(), true);
        }

        @Override
        public void entryUpdated(EntryEvent<String, QueueMeta> e) {
            cache.put(e.getKey(), e.getValue());
            settle(e.getKey(), true);
        }

        @Override
        public void entryRemoved(EntryEvent<String, QueueMeta> e) {
            QueueMeta cached = cache.remove(e.getKey());
            settle(e.getKey(), false);
            QueueMeta gone = e.getOldValue() != null ? e.getOldValue() : cached;
            onDeleted.accept(gone != null ? gone : QueueMeta.deleted(e.getKey(), 0));
        }
    }

    @Override
    public QueueMeta find(String name) {
        return cache.get(name);
    }

    /**
     * The map is asked (without blocking) whether the queue exists; if it does, the answer waits for
     * the map's event, which is what fills the cache, for at most {@link #NEWS_WAIT_MILLIS}.
     */
    @Override
    public CompletionStage<Boolean> awaitKnown(String name) {
        if (cache.containsKey(name)) {
            return CompletableFuture.completedFuture(true);
        }
        CompletableFuture<Boolean> known = arriving.computeIfAbsent(name, k -> {
            CompletableFuture<Boolean> news = new CompletableFuture<>();
            news.completeOnTimeout(false, NEWS_WAIT_MILLIS, TimeUnit.MILLISECONDS)
                    .whenComplete((v, err) -> arriving.remove(k, news));
            return news;
        });
        if (cache.containsKey(name)) { // the event came in between
            settle(name, true);
            return known;
        }
        queues.getAsync(name)
                .whenCompleteAsync(
                        (meta, err) -> {
                            if (meta == null || err != null) {
                                settle(name, cache.containsKey(name));
                            }
                        },
                        Runnable::run);
        return known;
    }

    private void settle(String name, boolean known) {
        CompletableFuture<Boolean> waiting = arriving.remove(name);
        if (waiting != null) {
            waiting.complete(known);
        }
    }

    /**
     * Under the name's lock, like {@link #delete}: the check for a recent deletion and the insert
     * cannot fall between a deletion's removal of the queue and its marker.
     */
    @Override
    public CompletionStage<QueueMeta> create(QueueMeta proposed) {
        return write(() -> locked(proposed.name(), () -> {
            QueueRegistry.refuseIfDeletedRecently(deleted.get(proposed.name()), clock.millis());
            QueueMeta existing = queues.putIfAbsent(proposed.name(), proposed);
            if (existing == null) {
                cache.put(proposed.name(), proposed);
                return proposed;
            }
            return QueueRegistry.existingIfSame(existing, proposed);
        }));
    }

    /**
     * Under the key's cluster-wide lock rather than by compare-and-set: a value read back from the
     * map need not serialize to the bytes stored (a lone surrogate in a tag comes back as '?', which
     * sorts elsewhere), and {@code replace(old, new)} then never succeeds. Creation and deletion take
     * the lock too; a member that dies holding it releases it.
     */
    @Override
    public CompletionStage<QueueMeta> update(String name, UnaryOperator<QueueMeta> change) {
        return write(() -> locked(name, () -> {
            QueueMeta old = queues.get(name);
            if (old == null) {
                throw QueueRegistry.doesNotExist();
            }
            QueueMeta updated = change.apply(old);
            queues.set(name, updated);
            cache.put(name, updated);
            return updated;
        }));
    }

    /** Runs {@code change} holding the name's cluster-wide lock; ServiceUnavailable if it stays taken. */
    private <T> T locked(String name, Supplier<T> change) {
        if (!tryLock(name)) {
            throw new SqsException(
                    ErrorCode.SERVICE_UNAVAILABLE, "The queue is being changed concurrently; try again.");
        }
        try {
            return change.get();
        } finally {
            queues.unlock(name);
        }
    }

    private boolean tryLock(String name) {
        try {
            return queues.tryLock(name, LOCK_WAIT_SECONDS, TimeUnit.SECONDS, LOCK_LEASE_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /**
     * Marks the name as deleted before removing the queue, both under the name's lock: a creation
     * (which takes the lock too) either finds the queue or the marker, never neither. Removed
     * first, a queue could be created in the moment between them, within SQS's 60 seconds, and a
     * send to it reaching a partition before the deletion's news was erased with the old queue.
     */
    @Override
    public CompletionStage<Void> delete(String name) {
        return write(() -> locked(name, () -> {
            if (!queues.containsKey(name)) {
                throw QueueRegistry.doesNotExist();
            }
            deleted.put(name, clock.millis(), DELETED_NAME_COOLDOWN_MILLIS, TimeUnit.MILLISECONDS);
            queues.remove(name);
            cache.remove(name);
            return null;
        }));
    }

    /**
     * Runs a change on the worker. A node without its cluster's majority may not change the maps
     * (HazelcastSetup's split-brain protection for writes): the client is told ServiceUnavailable.
     */
    private <T> CompletionStage<T> write(Supplier<T> change) {
        return CompletableFuture.supplyAsync(
                () -> {
                    try {
                        return change.get();
                    } catch (SplitBrainProtectionException e) {
                        throw MinorityRefusal.unavailable("change its queues");
                    }
                },
                blocking);
    }

    /** Read from the marker map without blocking; the answer is mapped on the thread that receives it. */
    @Override
    public CompletionStage<Boolean> deletedWithin(String name, long millis) {
        return deleted.getAsync(name)
                .thenApplyAsync(at -> QueueRegistry.deletedWithin(at, clock.millis(), millis), Runnable::run);
    }

    @Override
    public List<QueueMeta> list(String prefix) {
        String p = prefix == null ? "" : prefix;
        return cache.tailMap(p, true).values().stream()
                .takeWhile(q -> q.name().startsWith(p))
                .toList();
    }
}
