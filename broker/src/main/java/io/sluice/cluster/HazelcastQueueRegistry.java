package io.sluice.cluster;

import com.hazelcast.core.EntryEvent;
import com.hazelcast.map.IMap;
import com.hazelcast.map.listener.EntryAddedListener;
import com.hazelcast.map.listener.EntryRemovedListener;
import com.hazelcast.map.listener.EntryUpdatedListener;
import io.sluice.queue.Clock;
import io.sluice.queue.ErrorCode;
import io.sluice.queue.QueueAttributes;
import io.sluice.queue.QueueMeta;
import io.sluice.queue.QueueRegistry;
import io.sluice.queue.SqsException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;

/**
 * The queues of the cluster, in a replicated Hazelcast map, read from a local copy that map
 * listeners keep current. Writes run on a worker (Hazelcast's conditional writes are blocking
 * calls) and resolve races between nodes: creation by putIfAbsent, changes by
 * compare-and-replace, retried on conflict.
 */
public final class HazelcastQueueRegistry implements QueueRegistry {
    private static final int MAX_ATTEMPTS = 20;

    private final IMap<String, QueueMeta> queues;
    private final IMap<String, Long> deleted;
    private final Clock clock;
    private final Executor blocking;
    private final ConcurrentSkipListMap<String, QueueMeta> cache = new ConcurrentSkipListMap<>();
    private final Consumer<String> onDeleted;

    /** @param onDeleted told (on a Hazelcast thread) when any node deleted a queue */
    public HazelcastQueueRegistry(
            IMap<String, QueueMeta> queues,
            IMap<String, Long> deleted,
            Clock clock,
            Executor blocking,
            Consumer<String> onDeleted) {
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
        }

        @Override
        public void entryUpdated(EntryEvent<String, QueueMeta> e) {
            cache.put(e.getKey(), e.getValue());
        }

        @Override
        public void entryRemoved(EntryEvent<String, QueueMeta> e) {
            cache.remove(e.getKey());
            onDeleted.accept(e.getKey());
        }
    }

    @Override
    public QueueMeta find(String name) {
        return cache.get(name);
    }

    @Override
    public CompletionStage<QueueMeta> create(QueueMeta proposed) {
        return CompletableFuture.supplyAsync(
                () -> {
                    Long deletedAt = deleted.get(proposed.name());
                    if (deletedAt != null && clock.millis() - deletedAt < DELETED_NAME_COOLDOWN_MILLIS) {
                        throw new SqsException(
                                ErrorCode.QUEUE_DELETED_RECENTLY,
                                "You must wait 60 seconds after deleting a queue before you can create another with the same name.");
                    }
                    QueueMeta existing = queues.putIfAbsent(proposed.name(), proposed);
                    if (existing == null) {
                        cache.put(proposed.name(), proposed);
                        return proposed;
                    }
                    QueueMeta current = existing;
                    String differing = QueueAttributes.firstDifference(current, proposed);
                    if (differing != null) {
                        throw new SqsException(
                                ErrorCode.QUEUE_ALREADY_EXISTS,
                                "A queue already exists with the same name and a different value for attribute "
                                        + differing);
                    }
                    return current;
                },
                blocking);
    }

    @Override
    public CompletionStage<QueueMeta> update(String name, UnaryOperator<QueueMeta> change) {
        return CompletableFuture.supplyAsync(
                () -> {
                    for (int attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
                        QueueMeta old = queues.get(name);
                        if (old == null) {
                            throw QueueRegistry.doesNotExist();
                        }
                        QueueMeta updated = change.apply(old);
                        if (queues.replace(name, old, updated)) {
                            cache.put(name, updated);
                            return updated;
                        }
                    }
                    throw new SqsException(
                            ErrorCode.SERVICE_UNAVAILABLE, "The queue is being changed concurrently; try again.");
                },
                blocking);
    }

    @Override
    public CompletionStage<Void> delete(String name) {
        return CompletableFuture.supplyAsync(
                () -> {
                    if (queues.remove(name) == null) {
                        throw QueueRegistry.doesNotExist();
                    }
                    cache.remove(name);
                    deleted.put(name, clock.millis(), DELETED_NAME_COOLDOWN_MILLIS, TimeUnit.MILLISECONDS);
                    return null;
                },
                blocking);
    }

    @Override
    public List<QueueMeta> list(String prefix) {
        String p = prefix == null ? "" : prefix;
        return cache.tailMap(p, true).values().stream()
                .takeWhile(q -> q.name().startsWith(p))
                .toList();
    }
}
