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
import io.vertx.core.Vertx;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
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

    private static final long SAFETY_CHECK_MILLIS = 250;

    private final Vertx vertx;
    private final PartitionDirectory directory;
    private final QueueRegistry registry;
    private final Ownership ownership;
    private final PartitionService partitions;
    private final VisibilityListener wakes;
    private final AtomicBoolean scheduled = new AtomicBoolean();
    private final Executor blocking;
    private volatile boolean clusterSafe;
    /** The queues the last reconcile started the partitions of: the ones readiness answers for. */
    private volatile Set<String> reconciled = Set.of();

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

    public void start() {
        start(true);
    }

    /**
     * @param replicated whether other members can hold replicas; a node that runs alone has no
     *     backups to wait for, so it does not ask Hazelcast four times a second
     */
    public void start(boolean replicated) {
        partitions.addMigrationListener(this);
        vertx.setPeriodic(PERIOD_MILLIS, id -> reconcile());
        if (replicated) {
            vertx.setPeriodic(SAFETY_CHECK_MILLIS, id -> checkSafety());
            checkSafety();
        } else {
            clusterSafe = true;
        }
        reconcile();
    }

    /** Ready: the cluster has its backups in place and every partition this node owns is rebuilt. */
    public boolean ready() {
        return clusterSafe && allOwnedStarted();
    }

    /** Asking Hazelcast whether backups are in sync calls every member: done off the event loops. */
    private void checkSafety() {
        blocking.execute(() -> {
            try {
                clusterSafe = partitions.isClusterSafe();
            } catch (RuntimeException e) {
                clusterSafe = false;
            }
        });
    }

    /**
     * A queue created since the last reconcile does not count: it has nothing to rebuild, a request
     * starts its partition on the spot, and the next reconcile (within a second) starts the rest.
     * Counting it made the node unready for up to a second after every CreateQueue.
     */
    private boolean allOwnedStarted() {
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
            wakes.onVisible(key.queue(), -1);
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
    }

    private void scheduleSoon() {
        if (scheduled.compareAndSet(false, true)) {
            vertx.setTimer(GRACE_MILLIS, id -> {
                scheduled.set(false);
                reconcile();
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
