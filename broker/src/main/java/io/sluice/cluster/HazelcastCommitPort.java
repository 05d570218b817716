package io.sluice.cluster;

import com.hazelcast.map.IMap;
import com.hazelcast.query.Predicates;
import io.sluice.queue.CommitPort;
import io.sluice.queue.DedupEntry;
import io.sluice.queue.PartitionChange;
import io.sluice.queue.PartitionKey;
import io.sluice.queue.PartitionSnapshot;
import io.sluice.queue.StoredAttempt;
import io.sluice.queue.StoredMessage;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.function.Supplier;

/**
 * Partition state in a Hazelcast map with synchronous backups. One loop turn's changes become
 * one {@code submitToKeys} carrying all of them (one write per change manages only a few
 * thousand a second; batched, tens of thousands), applied by {@link CommitEntries} only while
 * this node is still the partition's primary. Hazelcast completes it only after the backups
 * acknowledged, and with fail-on-indeterminate-state a write whose backups did not answer fails.
 */
public final class HazelcastCommitPort implements CommitPort {
    private static final CompletionStage<Void> DONE = CompletableFuture.completedFuture(null);
    private static final Executor DIRECT = Runnable::run;
    private static final byte[] MARKER_VALUE = new byte[0];

    private final IMap<String, byte[]> map;
    private final Supplier<UUID> localMember;
    /** Where the loading query runs: Hazelcast has no asynchronous query, and event loops must not block. */
    private final Executor blocking;

    /** @param localMember this member's current identity (it changes when a split brain heals) */
    public HazelcastCommitPort(IMap<String, byte[]> map, Supplier<UUID> localMember, Executor blocking) {
        this.map = map;
        this.localMember = localMember;
        this.blocking = blocking;
    }

    @Override
    public CompletionStage<Void> commit(String queueName, int partition, List<PartitionChange> changes) {
        if (changes.isEmpty()) {
            return DONE;
        }
        PartitionKey pk = new PartitionKey(queueName, partition);
        // Last change per key wins, so a message stored and deleted in one turn is only deleted.
        Map<String, byte[]> latest = new LinkedHashMap<>();
        for (PartitionChange c : changes) {
            if (c instanceof PartitionChange.MessageStored m) {
                latest.put(
                        MessageKeys.key(MessageKeys.MESSAGE, m.messageId(), pk),
                        WireCodec.encodeMessage(m.record().snapshot()));
            } else if (c instanceof PartitionChange.MessageRemoved m) {
                latest.put(MessageKeys.key(MessageKeys.MESSAGE, m.messageId(), pk), null);
            } else if (c instanceof PartitionChange.DedupStored d) {
                latest.put(MessageKeys.key(MessageKeys.DEDUP, d.key(), pk), WireCodec.encodeDedup(d.entry()));
            } else if (c instanceof PartitionChange.DedupRemoved d) {
                latest.put(MessageKeys.key(MessageKeys.DEDUP, d.key(), pk), null);
            } else if (c instanceof PartitionChange.AttemptStored a) {
                latest.put(
                        MessageKeys.key(MessageKeys.ATTEMPT, a.attemptId(), pk), WireCodec.encodeAttempt(a.attempt()));
            } else if (c instanceof PartitionChange.AttemptRemoved a) {
                latest.put(MessageKeys.key(MessageKeys.ATTEMPT, a.attemptId(), pk), null);
            } else {
                throw new IllegalArgumentException("unknown change " + c);
            }
        }
        // submitToKeys answers once the primary replica applied the changes, without waiting for
        // the synchronous backups (Hazelcast documents this for every multi-partition invocation;
        // a member killed right after would take acknowledged changes with it). So a commit ends
        // with one single-key write on the same Hazelcast partition, fenced the same way: it is
        // answered only after its backups acknowledged, and the backup replica applies a
        // partition's backups in order, so by then it holds the changes before it too.
        // The callbacks only complete JDK futures, on the thread that completed Hazelcast's: given
        // no executor, Hazelcast would run them on the common pool, which on 2 cores means a new
        // thread each.
        UUID committer = localMember.get();
        String marker = MessageKeys.key(MessageKeys.COMMIT_MARKER, "", pk);
        CompletableFuture<Void> done = new CompletableFuture<>();
        map.submitToKeys(latest.keySet(), new CommitEntries(committer, latest, false))
                .whenCompleteAsync(
                        (results, err) -> {
                            if (err != null) {
                                done.completeExceptionally(err);
                            } else if (results.containsValue(Boolean.FALSE)) {
                                done.completeExceptionally(
                                        new IllegalStateException(pk + " changed owner before the commit reached it"));
                            } else {
                                map.submitToKey(
                                                marker,
                                                new CommitEntries(
                                                        committer,
                                                        Collections.singletonMap(marker, MARKER_VALUE),
                                                        false))
                                        .whenCompleteAsync(
                                                (applied, markerErr) -> {
                                                    if (markerErr != null) {
                                                        done.completeExceptionally(markerErr);
                                                    } else if (!Boolean.TRUE.equals(applied)) {
                                                        done.completeExceptionally(
                                                                new IllegalStateException(
                                                                        pk
                                                                                + " changed owner before the commit's backups were confirmed"));
                                                    } else {
                                                        done.complete(null);
                                                    }
                                                },
                                                DIRECT);
                            }
                        },
                        DIRECT);
        return done;
    }

    @Override
    public CompletionStage<PartitionSnapshot> load(String queueName, int partition) {
        PartitionKey pk = new PartitionKey(queueName, partition);
        return CompletableFuture.supplyAsync(
                () -> {
                    List<StoredMessage> messages = new ArrayList<>();
                    Map<String, DedupEntry> dedup = new HashMap<>();
                    Map<String, StoredAttempt> attempts = new HashMap<>();
                    // One query on the Hazelcast partition that holds this queue partition; other queue
                    // partitions hashed to the same one are filtered out by key.
                    for (Map.Entry<String, byte[]> e :
                            map.entrySet(Predicates.partitionPredicate(pk.toString(), Predicates.alwaysTrue()))) {
                        String key = e.getKey();
                        if (!MessageKeys.partitionOf(key).equals(pk)) {
                            continue;
                        }
                        switch (MessageKeys.kindOf(key)) {
                            case MessageKeys.MESSAGE -> messages.add(WireCodec.decodeMessage(e.getValue()));
                            case MessageKeys.DEDUP ->
                                dedup.put(MessageKeys.idOf(key), WireCodec.decodeDedup(e.getValue()));
                            case MessageKeys.ATTEMPT ->
                                attempts.put(MessageKeys.idOf(key), WireCodec.decodeAttempt(e.getValue()));
                            default -> {}
                        }
                    }
                    return new PartitionSnapshot(messages, dedup, attempts);
                },
                blocking);
    }
}
