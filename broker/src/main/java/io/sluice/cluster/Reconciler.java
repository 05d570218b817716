package io.sluice.cluster;

import com.hazelcast.partition.MigrationListener;
import com.hazelcast.partition.MigrationState;
import com.hazelcast.partition.PartitionService;
import com.hazelcast.partition.ReplicaMigrationEvent;
import io.sluice.partition.Ownership;
import io.sluice.partition.PartitionDirectory;
import io.sluice.partition.VisibilityListener;
import io.sluice.queue.PartitionKey;
import io.sluice.queue.QueueMeta;
import io.sluice.queue.QueueRegistry;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import java.util.logging.Logger;

/**
 * Keeps the partitions this node runs equal to the ones it owns. After every migration, and
 * once a second anyway, it drops partitions that moved away (their parked long polls are woken
 * to claim again through the new owner) and starts every owned partition of every queue, so
 * its records, deadlines and timers are rebuilt before a request needs them.
 */
public final class Reconciler implements MigrationListener {
    private static final Logger LOG = Logger.getLogger(Reconciler.class.getName());
    private static final long PERIOD_MILLIS = 1_000;
    /** Migration events come in bursts: one reconcile shortly after covers a burst. */
    private static final long GRACE_MILLIS = 100;

    /** How soon safety is asked again while backups are not in place. */
    private static final long SAFETY_CHECK_MILLIS = 250;
    /**
     * How soon it is asked again once they are: every ask makes each member compare the replica
     * versions of all its partitions with their backups (a tenth of a core per idle node when asked
     * four times a second). Migrations ask at once as well.
     */
    private static final long SAFE_RECHECK_MILLIS = 5_000;

    private final Vertx vertx;
    private final PartitionDirectory directory;
    private final QueueRegistry registry;
    private final Ownership ownership;
    private final PartitionService partitions;
    private final VisibilityListener wakes;
    private final AtomicBoolean scheduled = new AtomicBoolean();
    private final Executor blocking;
    private volatile boolean clusterSafe;
    private volatile boolean replicated;
    /** Where the safety checks are scheduled from; set by {@link #start(boolean)}. */
    private Context context;
    /** The timer of the next safety check, or -1; touched only on {@link #context}. */
    private long safetyTimer = -1;
    /** The queues the last reconcile started the partitions of: the ones readiness answers for. */
    private volatile Set<String> reconciled = Set.of();

    /**
     * How long after a DeleteQueue this node still erases what its store holds of the queue: the
     * name's cooldown less a margin, so that no erasure can reach a queue created after it.
     */
    static final long ERASE_LEFTOVERS_MILLIS = QueueRegistry.DELETED_NAME_COOLDOWN_MILLIS - 15_000;
    /** The queue partitions this node's store holds records of; null where commits end in memory. */
    private volatile Supplier<Set<PartitionKey>> held;
    /** Names whose deletion is being asked about, so that each is asked once at a time. */
    private final Set<String> asking = ConcurrentHashMap.newKeySet();

    public Reconciler(
            Vertx vertx,
            PartitionDirectory directory,
            QueueRegistry registry,
            Ownership ownership,
            PartitionService partitions,
            VisibilityListener wakes,
            Executor blocking) {
        this.blocking = blocking;
        this.vertx = vertx;
        this.directory = directory;
        this.registry = registry;
        this.ownership = ownership;
        this.partitions = partitions;
        this.wakes = wakes;
    }

    /**
     * @param replicated whether other members can hold replicas; a node that runs alone has no
     *     backups to wait for, so it does not ask Hazelcast four times a second
     */
    public void start(boolean replicated) {
        partitions.addMigrationListener(this);
        vertx.setPeriodic(PERIOD_MILLIS, id -> reconcile());
        context = vertx.getOrCreateContext();
        this.replicated = replicated;
        if (replicated) {
            checkSafety();
        } else {
            clusterSafe = true;
        }
        reconcile();
    }

    /**
     * Where this node learns which queue partitions its store holds records of (see {@link
     * #eraseLeftoversOfDeletedQueues}); not set where commits end in memory.
     */
    public void heldPartitions(Supplier<Set<PartitionKey>> held) {
        this.held = held;
    }

    /** Hazelcast reported the cluster safe when last asked: every backup in place. */
    public boolean backupsInPlace() {
        return clusterSafe;
    }

    /**
     * Asks Hazelcast whether backups are in sync (it calls every member: done off the event loops),
     * and asks again in {@link #SAFETY_CHECK_MILLIS} while they are not, {@link
     * #SAFE_RECHECK_MILLIS} once they are. A call replaces the pending check.
     */
    private void checkSafety() {
        if (Vertx.currentContext() != context) {
            context.runOnContext(v -> checkSafety());
            return;
        }
        if (safetyTimer >= 0) {
            vertx.cancelTimer(safetyTimer);
            safetyTimer = -1;
        }
        blocking.execute(() -> {
            boolean safe;
            try {
                safe = partitions.isClusterSafe();
            } catch (RuntimeException e) {
                safe = false;
            }
            clusterSafe = safe;
            long next = safe ? SAFE_RECHECK_MILLIS : SAFETY_CHECK_MILLIS;
            context.runOnContext(v -> {
                if (safetyTimer < 0) {
                    safetyTimer = vertx.setTimer(next, id -> {
                        safetyTimer = -1;
                        checkSafety();
                    });
                }
            });
        });
    }

    /**
     * Every partition this node owns is rebuilt. A queue created since the last reconcile does not
     * count: it has nothing to rebuild, a request
     * starts its partition on the spot, and the next reconcile (within a second) starts the rest.
     * Counting it made the node unready for up to a second after every CreateQueue.
     */
    public boolean partitionsRebuilt() {
        Set<String> known = reconciled;
        for (QueueMeta q : registry.list("")) {
            if (!known.contains(q.name())) {
                continue;
            }
            for (int i = 0; i < q.partitions(); i++) {
                if (ownership.ownsLocally(q.name(), i) && !directory.isStarted(q.name(), i)) {
                    return false;
                }
            }
        }
        return directory.allStarted();
    }

    private void reconcile() {
        List<PartitionKey> dropped = directory.dropMoved();
        for (PartitionKey key : dropped) {
            wakes.onVisible(key.queue(), VisibilityListener.ANY_PARTITION);
        }
        if (!dropped.isEmpty()) {
            LOG.fine(() -> "handed over " + dropped.size() + " partitions");
        }
        Set<String> names = new HashSet<>();
        for (QueueMeta q : registry.list("")) {
            for (int i = 0; i < q.partitions(); i++) {
                if (ownership.ownsLocally(q.name(), i) && !directory.isStarted(q.name(), i)) {
                    directory.start(q, i);
                }
            }
            names.add(q.name());
        }
        reconciled = names;
        eraseLeftoversOfDeletedQueues();
    }

    /**
     * Erases what this node's store holds, in partitions it owns, of a queue deleted moments ago.
     * A partition that moved here after this node heard of the deletion (a migration in the moment
     * of DeleteQueue) brings the records of a send that raced the deletion, and nothing else would
     * erase them before a queue of the same name, created after the cooldown, loaded them. Only
     * while the deletion reserves the name: then no queue of that name exists to be erased.
     */
    private void eraseLeftoversOfDeletedQueues() {
        Supplier<Set<PartitionKey>> source = held;
        if (source == null) {
            return;
        }
        Map<String, Integer> leftovers = new HashMap<>();
        for (PartitionKey key : source.get()) {
            if (registry.find(key.queue()) == null && ownership.ownsLocally(key.queue(), key.index())) {
                leftovers.merge(key.queue(), key.index() + 1, Math::max);
            }
        }
        leftovers.forEach((name, partitions) -> {
            if (!asking.add(name)) {
                return;
            }
            Future.fromCompletionStage(registry.deletedWithin(name, ERASE_LEFTOVERS_MILLIS), context)
                    .onComplete(deleted -> {
                        asking.remove(name);
                        if (deleted.succeeded() && deleted.result() && registry.find(name) == null) {
                            LOG.fine(() -> "erasing what this node holds of the deleted queue " + name);
                            directory.forget(QueueMeta.deleted(name, partitions));
                        }
                    });
        });
    }

    private void scheduleSoon() {
        if (scheduled.compareAndSet(false, true)) {
            vertx.setTimer(GRACE_MILLIS, id -> {
                scheduled.set(false);
                reconcile();
                if (replicated) {
                    // A migration may have changed whether backups are in place.
                    checkSafety();
                }
            });
        }
    }

    @Override
    public void migrationStarted(MigrationState state) {}

    @Override
    public void migrationFinished(MigrationState state) {
        scheduleSoon();
    }

    @Override
    public void replicaMigrationCompleted(ReplicaMigrationEvent event) {
        scheduleSoon();
    }

    @Override
    public void replicaMigrationFailed(ReplicaMigrationEvent event) {
        scheduleSoon();
    }
}
