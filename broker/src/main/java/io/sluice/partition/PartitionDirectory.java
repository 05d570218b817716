package io.sluice.partition;

import io.sluice.queue.Clock;
import io.sluice.queue.CommitPort;
import io.sluice.queue.Partition;
import io.sluice.queue.PartitionKey;
import io.sluice.queue.PartitionRequest;
import io.sluice.queue.QueueMeta;
import io.sluice.queue.QueueRegistry;
import io.sluice.queue.SequenceClock;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BooleanSupplier;

/**
 * The partitions this node runs. A partition is started the first time it is needed (or when
 * ownership moves here): its state is loaded from the {@link CommitPort} and rebuilt, and
 * requests that arrive meanwhile wait for that. A partition whose ownership moved away is
 * dropped, and requests for it fail with {@link PartitionMoved} so the caller finds the owner.
 */
public final class PartitionDirectory implements PartitionRouter {
    private final PartitionLoops loops;
    private final CommitPort port;
    private final Clock clock;
    private final QueueRegistry registry;
    private final VisibilityListener listener;
    private final Ownership ownership;
    private final SequenceClock sequences = new SequenceClock();
    /**
     * How long a node waits before rebuilding a gained partition of an existing queue while a
     * hand-over may be unsettled (see {@link #handoverRisk}). Right after a member is lost or
     * frozen, members' partition tables differ for a moment and replicas are being brought back
     * in sync; rebuilding after they settled keeps the new owner from reading a replica that is
     * about to change (the commit fence refuses what the previous owner writes later). A partition
     * that migrated from a live member (a join, a graceful leave) needs no wait: the migration
     * blocked the source's writes and carried every record.
     */
    static final long HANDOVER_GRACE_MILLIS = 1_500;
    /** A queue younger than this never had another owner: its partitions load at once. */
    private static final long NEW_QUEUE_MILLIS = 10_000;

    /** Whether a member was lost (or this node paused) lately: then a gained partition waits. */
    private volatile BooleanSupplier handoverRisk = () -> true;

    private volatile boolean serving = true;
    private volatile PartitionEvents events = PartitionEvents.NONE;
    /** Running partitions and partitions being loaded. */
    private final ConcurrentHashMap<PartitionKey, Future<PartitionHost>> hosts = new ConcurrentHashMap<>();

    public PartitionDirectory(
            PartitionLoops loops,
            CommitPort port,
            Clock clock,
            QueueRegistry registry,
            VisibilityListener listener,
            Ownership ownership) {
        this.loops = loops;
        this.port = port;
        this.clock = clock;
        this.registry = registry;
        this.listener = listener;
        this.ownership = ownership;
    }

    /**
     * Tells when a gained partition must wait {@link #HANDOVER_GRACE_MILLIS} before it is rebuilt;
     * until set, always.
     */
    public void handoverRisk(BooleanSupplier risk) {
        this.handoverRisk = risk;
    }

    /** Who hears of this node's commits, rebuilds and hand-overs (its metrics). */
    public void events(PartitionEvents observer) {
        this.events = observer;
    }

    /** Runs a request on a partition this node owns, starting the partition first if needed. */
    @Override
    public <R> Future<R> execute(String queueName, int partition, PartitionRequest<R> request) {
        PartitionCall<R> call = new PartitionCall<>(request);
        executeAll(queueName, partition, List.of(call));
        return call.future();
    }

    /**
     * Runs several requests on one partition this node owns, in order, in one task on its loop,
     * starting the partition first if needed (they run once it is loaded); each call's future
     * completes where the caller runs, once their commit is done.
     */
    public void executeAll(String queueName, int partition, List<PartitionCall<?>> calls) {
        Future<PartitionHost> host = hostFor(queueName, partition);
        Context caller = Vertx.currentContext();
        if (host.succeeded()) {
            host.result().executeAll(calls, caller);
            return;
        }
        host.onComplete(ar -> {
            if (ar.succeeded()) {
                ar.result().executeAll(calls, caller);
            } else {
                PartitionHost.completeOn(caller, calls, ar.cause());
            }
        });
    }

    /**
     * The partition's host, started if needed (the future completes once it is loaded); failed
     * when the queue or partition does not exist or the partition is not owned here. A queue this
     * node has not heard of yet, named by a node that has (it was created through that one a moment
     * ago), is waited for.
     */
    private Future<PartitionHost> hostFor(String queueName, int partition) {
        QueueMeta meta = registry.find(queueName);
        if (meta == null) {
            Context caller = Vertx.currentContext();
            CompletionStage<Boolean> news = registry.awaitKnown(queueName);
            return (caller == null ? Future.fromCompletionStage(news) : Future.fromCompletionStage(news, caller))
                    .compose(known ->
                            known ? hostFor(queueName, partition) : Future.failedFuture(QueueRegistry.doesNotExist()));
        }
        if (partition < 0 || partition >= meta.partitions()) {
            return Future.failedFuture(QueueRegistry.doesNotExist());
        }
        if (!serving || !ownership.ownsLocally(queueName, partition)) {
            return Future.failedFuture(new PartitionMoved(queueName, partition));
        }
        PartitionKey key = new PartitionKey(queueName, partition);
        Future<PartitionHost> host = hosts.get(key);
        if (host != null && host.succeeded() && host.result().isClosed() && hosts.remove(key, host)) {
            // It stopped serving (lost for a moment, or its storage refused a commit): rebuilt from storage.
            detach(host);
            host = null;
        }
        return host == null ? start(meta, partition) : host;
    }

    /** Starts (loads and rebuilds) a partition this node owns; a no-op when it runs already. */
    public Future<PartitionHost> start(QueueMeta meta, int partition) {
        PartitionKey key = new PartitionKey(meta.name(), partition);
        return hosts.computeIfAbsent(key, k -> {
            Context loop = loops.assign();
            Promise<PartitionHost> started = Promise.promise();
            long grace = clock.millis() - meta.createdMillis() < NEW_QUEUE_MILLIS || !handoverRisk.getAsBoolean()
                    ? 0
                    : HANDOVER_GRACE_MILLIS;
            loop.runOnContext(v -> delay(loop, grace)
                    .compose(x -> Future.fromCompletionStage(port.load(meta.name(), partition), loop))
                    .onFailure(err -> {
                        hosts.remove(key);
                        started.fail(err);
                    })
                    .onSuccess(snapshot -> {
                        Partition state =
                                new Partition(clock, () -> retentionOf(meta.name()), meta.fifo(), partition, sequences);
                        // Records of another incarnation were left by a queue deleted earlier under this name (or,
                        // seen by a partition of a deleted queue, written by the one created since): not this
                        // queue's, and storage drops them at the partition's first commit. A deleted queue's
                        // stand-in knows no incarnation: it loads what is stored and erases it.
                        if (!snapshot.ofAnotherIncarnationThan(meta.createdMillis())) {
                            state.restore(snapshot);
                        }
                        PartitionHost host = new PartitionHost(
                                meta.name(), partition, meta.createdMillis(), state, loop, port, listener, ownership);
                        host.events(events);
                        loops.attach(host);
                        host.onBroken(() -> {
                            Future<PartitionHost> self = hosts.get(key);
                            if (self != null && self.succeeded() && self.result() == host && hosts.remove(key, self)) {
                                loops.detach(host);
                            }
                        });
                        started.complete(host);
                        events.rebuilt();
                        // Whatever is visible after the rebuild may be what a parked receive waits for.
                        listener.onVisible(meta.name(), partition);
                    }));
            return started.future();
        });
    }

    /** A future completed on {@code loop} after {@code millis}; called on that loop, so the timer is its. */
    private static Future<Void> delay(Context loop, long millis) {
        if (millis <= 0) {
            return Future.succeededFuture();
        }
        Promise<Void> p = Promise.promise();
        loop.owner().setTimer(millis, id -> p.complete());
        return p.future();
    }

    /**
     * Stops serving every partition here: requests get {@link PartitionMoved} and go to the next
     * owner. Used when the node leaves, and after a pause long enough for the cluster to have
     * given its partitions to others (its memory of them may be stale).
     *
     * @param resume whether partitions may be started again (after a pause) or not (leaving)
     */
    public void dropAll(boolean resume) {
        serving = resume;
        for (PartitionKey key : hosts.keySet()) {
            detach(hosts.remove(key));
        }
    }

    /**
     * Drops the partitions of a deleted queue, each after erasing what it stored: a send that
     * reached a partition between DeleteQueue's purge and the deletion's news would otherwise stay
     * in its replicas and come back in a queue created later under the same name. A partition owned
     * here that runs nowhere here (it moved here after the purge, or its host broke) is started
     * from its replica to be erased the same way.
     */
    public void forget(QueueMeta deleted) {
        String queueName = deleted.name();
        // Which partitions a host here will erase: one running or still loading, not one that stopped serving.
        boolean[] erasing = new boolean[deleted.partitions()];
        hosts.entrySet().removeIf(e -> {
            if (!e.getKey().queue().equals(queueName)) {
                return false;
            }
            Future<PartitionHost> f = e.getValue();
            int index = e.getKey().index();
            if (index < erasing.length) {
                erasing[index] = !(f.succeeded() && f.result().isClosed());
            }
            f.onSuccess(loops::retire);
            return true;
        });
        if (!port.replicates() || !serving) {
            return;
        }
        for (int i = 0; i < erasing.length; i++) {
            if (!erasing[i] && ownership.ownsLocally(queueName, i)) {
                PartitionKey key = new PartitionKey(queueName, i);
                Future<PartitionHost> loading = start(deleted, i);
                loading.onSuccess(host -> {
                    if (hosts.remove(key, loading)) {
                        loops.retire(host);
                    }
                });
            }
        }
    }

    /** Drops the partitions this node no longer owns (or that stopped serving); they are rebuilt by their owner. */
    public List<PartitionKey> dropMoved() {
        List<PartitionKey> dropped = new ArrayList<>();
        for (Map.Entry<PartitionKey, Future<PartitionHost>> e : hosts.entrySet()) {
            Future<PartitionHost> f = e.getValue();
            if (f.succeeded()
                    && (f.result().isClosed()
                            || !ownership.ownsLocally(
                                    f.result().queueName(), f.result().index()))) {
                if (hosts.remove(e.getKey(), f)) {
                    detach(f);
                    dropped.add(e.getKey());
                    events.handedOver();
                }
            }
        }
        return dropped;
    }

    /**
     * Whether every partition this node started has finished loading. Always on a node whose
     * commits end in memory: it has nothing to rebuild, and the moment between a partition's
     * start and its (empty) load completing made a standalone node report not ready while new
     * queues were being used (the fuzz test's /health once got a 503).
     */
    public boolean allStarted() {
        return !port.replicates() || hosts.values().stream().allMatch(Future::isComplete);
    }

    @Override
    public boolean knownEmpty(String queueName, int partition) {
        Future<PartitionHost> host = hosts.get(new PartitionKey(queueName, partition));
        return host != null
                && host.succeeded()
                && !host.result().isClosed()
                && host.result().stats().visible() == 0;
    }

    public boolean isStarted(String queueName, int partition) {
        return hosts.containsKey(new PartitionKey(queueName, partition));
    }

    /** Counts of the partitions running here, by queue. */
    public Map<String, Map<Integer, PartitionStats>> localStats() {
        Map<String, Map<Integer, PartitionStats>> out = new HashMap<>();
        for (Future<PartitionHost> f : hosts.values()) {
            if (f.succeeded()) {
                PartitionHost h = f.result();
                out.computeIfAbsent(h.queueName(), k -> new HashMap<>()).put(h.index(), h.stats());
            }
        }
        return out;
    }

    @Override
    public PartitionStats[] stats(String queueName) {
        QueueMeta meta = registry.find(queueName);
        if (meta == null) {
            return new PartitionStats[0];
        }
        PartitionStats[] out = new PartitionStats[meta.partitions()];
        for (int i = 0; i < out.length; i++) {
            Future<PartitionHost> f = hosts.get(new PartitionKey(queueName, i));
            out[i] = f != null && f.succeeded() ? f.result().stats() : PartitionStats.EMPTY;
        }
        return out;
    }

    private void detach(Future<PartitionHost> f) {
        if (f != null) {
            f.onSuccess(loops::detach);
        }
    }

    private long retentionOf(String name) {
        QueueMeta meta = registry.find(name);
        return meta == null ? Long.MAX_VALUE / 2 : meta.retentionMillis();
    }
}
