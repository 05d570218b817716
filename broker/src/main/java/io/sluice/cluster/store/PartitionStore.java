package io.sluice.cluster.store;

import com.hazelcast.cluster.Member;
import com.hazelcast.config.Config;
import com.hazelcast.config.ConfigAccessor;
import com.hazelcast.config.ServiceConfig;
import com.hazelcast.config.SplitBrainProtectionConfig;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.internal.partition.MigrationAwareService;
import com.hazelcast.internal.partition.MigrationEndpoint;
import com.hazelcast.internal.partition.PartitionMigrationEvent;
import com.hazelcast.internal.partition.PartitionReplicationEvent;
import com.hazelcast.internal.services.ManagedService;
import com.hazelcast.spi.impl.NodeEngine;
import com.hazelcast.spi.impl.operationservice.Operation;
import com.hazelcast.spi.impl.operationservice.OperationService;
import com.hazelcast.splitbrainprotection.SplitBrainProtectionOn;
import io.sluice.queue.PartitionKey;
import io.sluice.queue.PartitionSnapshot;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A Hazelcast service that keeps the replicated records of every queue partition, the way
 * Hazelcast's own structures keep theirs: per Hazelcast partition, touched only on that
 * partition's thread, written by one backup-aware operation per commit (one loop turn of one
 * queue partition), copied to a new replica by migration as one unit per queue partition, and
 * dropped from a member that is no longer a replica.
 *
 * <p>The queue partition "queue#i" lives in the Hazelcast partition its key hashes to, so its
 * owner in Hazelcast's partition table is the node that runs it.
 */
public final class PartitionStore implements ManagedService, MigrationAwareService {
    public static final String SERVICE_NAME = "sluice:partitionStore";

    private final int backupCount;
    /** The split-brain protection that must be met for a write, or null when the configuration has none. */
    private String splitBrainProtection;

    private NodeEngine nodeEngine;
    /** {@link #clusterFormat()}'s last answer and the member list it is for. */
    private volatile FormOfMembers formOfMembers;
    /** Per Hazelcast partition id: queue partition key → records. Each touched only on its partition's thread. */
    private Map<String, StoredPartition>[] partitions;
    /** The keys of {@link #partitions}, all of them, readable from any thread. */
    private final Set<String> heldKeys = ConcurrentHashMap.newKeySet();

    /**
     * @param backupCount synchronous backups of every commit
     * @param splitBrainProtection the split-brain protection writes require, if the member configuration enables one by this name
     */
    public PartitionStore(int backupCount, String splitBrainProtection) {
        this.backupCount = backupCount;
        this.splitBrainProtection = splitBrainProtection;
    }

    /** Registers a new store, and the serialization of its operations, in a member configuration. */
    public static void register(Config config, int backupCount, String splitBrainProtection) {
        ConfigAccessor.getServicesConfig(config)
                .addServiceConfig(new ServiceConfig()
                        .setEnabled(true)
                        .setName(SERVICE_NAME)
                        .setImplementation(new PartitionStore(backupCount, splitBrainProtection)));
        config.getSerializationConfig()
                .addDataSerializableFactory(StoreSerialization.FACTORY_ID, new StoreSerialization());
        config.getMemberAttributeConfig()
                .setAttribute(StoreFormat.ATTRIBUTE, Integer.toString(StoreFormat.CURRENT.number()))
                // What the release that introduced deliveries looks for: it then writes them.
                .setAttribute(StoreFormat.DELIVERIES_ATTRIBUTE, "1");
    }

    /** The store of a member whose configuration went through {@link #register}. */
    public static PartitionStore of(HazelcastInstance member) {
        ServiceConfig service =
                ConfigAccessor.getServicesConfig(member.getConfig()).getServiceConfig(SERVICE_NAME);
        if (service == null || !(service.getImplementation() instanceof PartitionStore store)) {
            throw new IllegalStateException("the member was configured without the partition store");
        }
        return store;
    }

    /**
     * What one replica of a queue partition holds, read on that replica's partition thread (0 is
     * the primary, 1 its first backup) for {@code requester}; completes with null when that
     * replica is not on the requesting member (the partition moved on). The stage completes on
     * the Hazelcast thread that received the answer.
     */
    public CompletionStage<PartitionSnapshot> read(
            UUID requester, PartitionKey key, int partitionId, int replicaIndex) {
        CompletableFuture<PartitionSnapshot> read = new CompletableFuture<>();
        nodeEngine
                .getOperationService()
                .createInvocationBuilder(SERVICE_NAME, new LoadOperation(requester, key.toString()), partitionId)
                .setReplicaIndex(replicaIndex)
                .<StoredPartition>invoke()
                .whenCompleteAsync(
                        (state, err) -> {
                            if (err != null) {
                                read.completeExceptionally(err);
                            } else {
                                read.complete(state == null ? null : state.toSnapshot());
                            }
                        },
                        Runnable::run);
        return read;
    }

    /** {@link #read} of a replica this member holds, for tests and diagnostics. */
    public CompletionStage<PartitionSnapshot> readReplica(PartitionKey key, int replicaIndex) {
        return read(
                        nodeEngine.getLocalMember().getUuid(),
                        key,
                        nodeEngine.getPartitionService().getPartitionId(key.toString()),
                        replicaIndex)
                .thenApply(snapshot -> snapshot == null ? PartitionSnapshot.EMPTY : snapshot);
    }

    /** The newest form every member of the cluster reads: the one commits travel in. */
    public StoreFormat clusterFormat() {
        // Asked for every commit: worked out again only when the member list changed (Hazelcast
        // replaces that set then; a member's attributes never change).
        Set<Member> members = nodeEngine.getClusterService().getMembers();
        FormOfMembers known = formOfMembers;
        if (known != null && known.members() == members) {
            return known.form();
        }
        StoreFormat form = StoreFormat.CURRENT;
        for (Member member : members) {
            StoreFormat read = StoreFormat.readBy(member);
            if (read.compareTo(form) < 0) {
                form = read;
            }
        }
        formOfMembers = new FormOfMembers(members, form);
        return form;
    }

    /** The newest form every member of {@code members} reads. */
    private record FormOfMembers(Set<Member> members, StoreFormat form) {}

    /** Where this member's operations are invoked; known once the member started. */
    public OperationService operations() {
        return nodeEngine.getOperationService();
    }

    @Override
    @SuppressWarnings("unchecked")
    public void init(NodeEngine nodeEngine, Properties properties) {
        this.nodeEngine = nodeEngine;
        SplitBrainProtectionConfig protection =
                nodeEngine.getConfig().getSplitBrainProtectionConfigs().get(splitBrainProtection);
        if (protection == null || !protection.isEnabled()) {
            splitBrainProtection = null;
        }
        int count = nodeEngine.getPartitionService().getPartitionCount();
        partitions = new Map[count];
        for (int i = 0; i < count; i++) {
            partitions[i] = new HashMap<>();
        }
    }

    /** Called when this member merges into another cluster after a split brain: its side's records are discarded. */
    @Override
    public void reset() {
        for (int i = 0; i < partitions.length; i++) {
            partitions[i] = new HashMap<>();
        }
        heldKeys.clear();
    }

    /**
     * The queue partitions this member holds records of, as primary or as backup: a snapshot,
     * read from any thread, of what commits and migrations left here.
     */
    public Set<PartitionKey> heldPartitions() {
        Set<PartitionKey> held = new HashSet<>();
        for (String key : heldKeys) {
            held.add(PartitionKey.parse(key));
        }
        return held;
    }

    @Override
    public void shutdown(boolean terminate) {
        reset();
    }

    int backupCount() {
        return backupCount;
    }

    /** Whether this member is the one that sent an operation naming {@code requester}: the fence. */
    boolean isLocal(UUID requester) {
        // Asked each time: a member merged back after a split brain has a new identity.
        return requester.equals(nodeEngine.getLocalMember().getUuid());
    }

    /** Refuses a read while the member's side has too few members (protect-on READ or READ_WRITE). */
    void ensureReadable() {
        if (splitBrainProtection != null) {
            nodeEngine
                    .getSplitBrainProtectionService()
                    .ensureNoSplitBrain(splitBrainProtection, SplitBrainProtectionOn.READ);
        }
    }

    void ensureWritable() {
        if (splitBrainProtection != null) {
            nodeEngine
                    .getSplitBrainProtectionService()
                    .ensureNoSplitBrain(splitBrainProtection, SplitBrainProtectionOn.WRITE);
        }
    }

    /**
     * Applies a commit to the records it names. A commit that names its queue's incarnation drops
     * the records of another one first: left by a queue deleted earlier under the same name. Only
     * whether they differ counts, not which is later, since incarnations are creation times read
     * from different nodes' clocks. Records or commits whose incarnation is not known mix as
     * before: an older member wrote them, or a deleted queue's stand-in erases what it found; the
     * first commit that names one adopts such records.
     */
    void apply(int partitionId, PartitionDelta delta) {
        Map<String, StoredPartition> held = partitions[partitionId];
        String key = delta.partitionKey();
        StoredPartition state = held.get(key);
        if (state == null) {
            state = new StoredPartition();
            held.put(key, state);
            heldKeys.add(key);
        }
        state.adopt(delta.incarnation());
        delta.applyTo(state);
        if (state.isEmpty()) {
            held.remove(key);
            heldKeys.remove(key);
        }
    }

    StoredPartition copyOf(int partitionId, String partitionKey) {
        StoredPartition state = partitions[partitionId].get(partitionKey);
        return state == null ? new StoredPartition() : state.copy();
    }

    void install(int partitionId, Map<String, StoredPartition> states) {
        clear(partitionId);
        partitions[partitionId].putAll(states);
        heldKeys.addAll(states.keySet());
    }

    private void clear(int partitionId) {
        Map<String, StoredPartition> held = partitions[partitionId];
        held.keySet().forEach(heldKeys::remove);
        held.clear();
    }

    @Override
    public Operation prepareReplicationOperation(PartitionReplicationEvent event) {
        if (event.getReplicaIndex() > backupCount) {
            return null;
        }
        Map<String, StoredPartition> held = partitions[event.getPartitionId()];
        if (held.isEmpty()) {
            return null;
        }
        Map<String, StoredPartition> copy = new HashMap<>();
        held.forEach((k, v) -> copy.put(k, v.copy()));
        Member target = nodeEngine.getClusterService().getMember(event.getTarget());
        StoreFormat form = target == null ? StoreFormat.WHOLE_RECORDS : StoreFormat.readBy(target);
        return new ReplicationOperation(copy, form);
    }

    @Override
    public void beforeMigration(PartitionMigrationEvent event) {}

    @Override
    public void commitMigration(PartitionMigrationEvent event) {
        if (event.getMigrationEndpoint() == MigrationEndpoint.SOURCE
                && (event.getNewReplicaIndex() == -1 || event.getNewReplicaIndex() > backupCount)) {
            clear(event.getPartitionId());
        }
    }

    @Override
    public void rollbackMigration(PartitionMigrationEvent event) {
        if (event.getMigrationEndpoint() == MigrationEndpoint.DESTINATION
                && (event.getCurrentReplicaIndex() == -1 || event.getCurrentReplicaIndex() > backupCount)) {
            clear(event.getPartitionId());
        }
    }
}
