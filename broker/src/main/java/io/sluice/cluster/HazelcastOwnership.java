package io.sluice.cluster;

import com.hazelcast.cluster.Member;
import com.hazelcast.partition.Partition;
import com.hazelcast.partition.PartitionService;
import io.sluice.partition.Ownership;

/**
 * Who owns a queue partition: the member Hazelcast's partition table names as the owner of
 * the partition key "queue#index". That member's Vert.x node id (a member attribute set by the
 * Vert.x cluster manager, not the member UUID) is where its event-bus requests go.
 */
public final class HazelcastOwnership implements Ownership {
    static final String NODE_ID_ATTRIBUTE = "__vertx.nodeId";

    private final PartitionService partitions;
    /**
     * Hazelcast's partition objects are live views of the table, so each queue partition's is
     * looked up (which hashes the serialized key) once and asked for its current owner after.
     */
    private final java.util.concurrent.ConcurrentHashMap<String, Partition> byKey = new java.util.concurrent.ConcurrentHashMap<>();

    public HazelcastOwnership(PartitionService partitions) {
        this.partitions = partitions;
    }

    @Override
    public boolean ownsLocally(String queueName, int partition) {
        Member owner = owner(queueName, partition);
        return owner != null && owner.localMember();
    }

    /** The owning member, or null while the partition has none (during a failover). */
    public Member owner(String queueName, int partition) {
        return partitionOf(queueName, partition).getOwner();
    }

    /** The Hazelcast partition that holds the queue partition's records. */
    public int partitionId(String queueName, int partition) {
        return partitionOf(queueName, partition).getPartitionId();
    }

    private Partition partitionOf(String queueName, int partition) {
        return byKey.computeIfAbsent(MessageKeys.partitionKey(queueName, partition), partitions::getPartition);
    }

    public static String nodeId(Member member) {
        return member.getAttribute(NODE_ID_ATTRIBUTE);
    }
}
