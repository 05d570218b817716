package io.sluice.cluster;

import io.sluice.cluster.store.CommitOperation;
import io.sluice.cluster.store.PartitionDelta;
import io.sluice.cluster.store.PartitionStore;
import io.sluice.partition.PartitionMoved;
import io.sluice.queue.CommitPort;
import io.sluice.queue.PartitionChange;
import io.sluice.queue.PartitionKey;
import io.sluice.queue.PartitionSnapshot;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.function.Supplier;

/**
 * Partition state in the {@link PartitionStore} service, with synchronous backups. One loop
 * turn's changes of a queue partition travel as one {@link CommitOperation} to the Hazelcast
 * partition that holds it, whose primary is this node: no network hop for the primary, one for
 * each backup. Hazelcast completes it only after the backups acknowledged (and with
 * fail-on-indeterminate-state, a write whose backups did not answer fails).
 *
 * <p>The stages this port returns complete on the Hazelcast thread that received the answer (for
 * a commit, the IO thread that read the backups' acknowledgement, as {@link HazelcastSetup}
 * configures no response threads; a load's records are only ever answered to the local member, by
 * its partition thread): callers hop to their own thread themselves. No callback here runs on
 * Hazelcast's default executor, which on a 2-core machine starts a thread per callback.
 *
 * <p>A node that sees fewer members than the split-brain protection asks for may neither read nor
 * write partition state: its loads and commits fail with a retryable ServiceUnavailable, which
 * the client is told as it is (not an internal error) and which is not logged per request.
 */
public final class HazelcastCommitPort implements CommitPort {
    private static final CompletionStage<Void> DONE = CompletableFuture.completedFuture(null);
    /** Runs a callback on the thread that completed the invocation: the callbacks here only complete a future. */
    private static final Executor DIRECT = Runnable::run;

    private final PartitionStore store;
    private final HazelcastOwnership ownership;
    private final Supplier<UUID> localMember;

    /** @param localMember this member's current identity (it changes when a split brain heals) */
    public HazelcastCommitPort(PartitionStore store, HazelcastOwnership ownership, Supplier<UUID> localMember) {
        this.store = store;
        this.ownership = ownership;
        this.localMember = localMember;
    }

    @Override
    public CompletionStage<Void> commit(
            String queueName, int partition, long incarnation, List<PartitionChange> changes) {
        if (changes.isEmpty()) {
            return DONE;
        }
        PartitionKey key = new PartitionKey(queueName, partition);
        PartitionDelta delta = new PartitionDelta(key.toString(), incarnation, changes, store.clusterFormat());
        CompletableFuture<Void> done = new CompletableFuture<>();
        store.operations()
                .<Boolean>invokeOnPartition(
                        PartitionStore.SERVICE_NAME,
                        new CommitOperation(localMember.get(), delta),
                        ownership.partitionId(queueName, partition))
                .whenCompleteAsync(
                        (accepted, err) -> {
                            if (err != null) {
                                done.completeExceptionally(translated(err));
                            } else if (!Boolean.TRUE.equals(accepted)) {
                                // The partition changed owner before the commit reached it: refused, so
                                // nothing of it was written, and its requests may run at the new owner.
                                done.completeExceptionally(new PartitionMoved(queueName, partition));
                            } else {
                                done.complete(null);
                            }
                        },
                        DIRECT);
        return done;
    }

    @Override
    public CompletionStage<PartitionSnapshot> load(String queueName, int partition) {
        CompletableFuture<PartitionSnapshot> loaded = new CompletableFuture<>();
        store.read(
                        localMember.get(),
                        new PartitionKey(queueName, partition),
                        ownership.partitionId(queueName, partition),
                        0)
                .whenCompleteAsync(
                        (snapshot, err) -> {
                            if (err != null) {
                                loaded.completeExceptionally(translated(err));
                            } else if (snapshot == null) {
                                loaded.completeExceptionally(new PartitionMoved(queueName, partition));
                            } else {
                                loaded.complete(snapshot);
                            }
                        },
                        DIRECT);
        return loaded;
    }

    /** A refusal of the split-brain protection as what the client is told; any other failure as it is. */
    static Throwable translated(Throwable err) {
        return MinorityRefusal.translated(err, "read or write messages");
    }
}
