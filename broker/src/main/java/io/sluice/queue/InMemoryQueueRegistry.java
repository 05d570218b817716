package io.sluice.queue;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

/** A registry in one process's memory, for tests of the layers above it (nodes use the Hazelcast one). */
public final class InMemoryQueueRegistry implements QueueRegistry {
    private final Clock clock;
    private final ConcurrentSkipListMap<String, QueueMeta> queues = new ConcurrentSkipListMap<>();
    private final ConcurrentHashMap<String, Long> deletedAt = new ConcurrentHashMap<>();

    public InMemoryQueueRegistry(Clock clock) {
        this.clock = clock;
    }

    @Override
    public QueueMeta find(String name) {
        return queues.get(name);
    }

    @Override
    public CompletionStage<QueueMeta> create(QueueMeta proposed) {
        return attempt(() -> createNow(proposed));
    }

    @Override
    public CompletionStage<QueueMeta> update(String name, UnaryOperator<QueueMeta> change) {
        return attempt(() -> updateNow(name, change));
    }

    @Override
    public CompletionStage<Void> delete(String name) {
        return attempt(() -> {
            deleteNow(name);
            return null;
        });
    }

    private static <T> CompletionStage<T> attempt(Supplier<T> op) {
        try {
            return CompletableFuture.completedFuture(op.get());
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    private QueueMeta createNow(QueueMeta proposed) {
        Long deleted = deletedAt.get(proposed.name());
        if (deleted != null) {
            QueueRegistry.refuseIfDeletedRecently(deleted, clock.millis());
            deletedAt.remove(proposed.name(), deleted);
        }
        QueueMeta existing = queues.putIfAbsent(proposed.name(), proposed);
        return existing == null ? proposed : QueueRegistry.existingIfSame(existing, proposed);
    }

    private QueueMeta updateNow(String name, UnaryOperator<QueueMeta> change) {
        QueueMeta updated = queues.computeIfPresent(name, (k, v) -> change.apply(v));
        if (updated == null) {
            throw QueueRegistry.doesNotExist();
        }
        return updated;
    }

    private void deleteNow(String name) {
        if (queues.remove(name) == null) {
            throw QueueRegistry.doesNotExist();
        }
        deletedAt.put(name, clock.millis());
    }

    @Override
    public CompletionStage<Boolean> deletedWithin(String name, long millis) {
        return CompletableFuture.completedFuture(
                QueueRegistry.deletedWithin(deletedAt.get(name), clock.millis(), millis));
    }

    @Override
    public List<QueueMeta> list(String prefix) {
        String p = prefix == null ? "" : prefix;
        return queues.tailMap(p, true).values().stream()
                .takeWhile(q -> q.name().startsWith(p))
                .toList();
    }
}
