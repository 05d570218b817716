package io.sluice.cluster;

import com.hazelcast.cluster.Member;
import com.hazelcast.partition.Partition;
import com.hazelcast.partition.PartitionService;
import io.sluice.partition.Ownership;
import io.sluice.queue.PartitionKey;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;

/**
 * Who owns a queue partition: the member Hazelcast's partition table names as the owner of
 * the text of its {@link PartitionKey} ("queue#index"; the partition store keeps the queue
 * partition's records in that same Hazelcast partition, so they live where it is owned). That
 * member's Vert.x node id (a member attribute set by the Vert.x cluster manager, not the member
 * UUID) is where its event-bus requests go.
 */
public final class HazelcastOwnership implements Ownership {
    static final String NODE_ID_ATTRIBUTE = "__vertx.nodeId";
    /**
     * Set on members that serve batched partition requests ({@code SendBatch}, {@code DeleteBatch});
     * a member of an older build, in a rolling upgrade, lacks it.
     */
    static final String BATCHES_ATTRIBUTE = "sluice.batches";

    /**
     * Set on members that read several forwarded requests in one message ({@link ForwardedBundle});
     * a member of an older build lacks it and gets them one per message.
     */
    static final String BUNDLES_ATTRIBUTE = "sluice.bundles";

    private final PartitionService partitions;
    /**
     * Hazelcast's partition objects are live views of the table, so each queue partition's is
     * looked up (which hashes the serialized key) once and asked for its current owner after.
     */
    private final ConcurrentHashMap<String, Partition[]> byQueue = new ConcurrentHashMap<>();
    /** Which queues' partitions are kept in {@link #byQueue}; see {@link #cachesOnly}. */
    private volatile Predicate<String> cacheable = queue -> true;

    public HazelcastOwnership(PartitionService partitions) {
        this.partitions = partitions;
    }

    /**
     * Keeps the partitions of only the queues {@code known} accepts (the existing ones): a
     * deleted queue's partitions are still asked for while they are erased, and caching them
     * again then would keep an entry for every queue name ever deleted.
     */
    public void cachesOnly(Predicate<String> known) {
        this.cacheable = known;
    }

    /** Drops what is kept for a deleted queue. */
    public void forget(String queueName) {
        byQueue.remove(queueName);
    }

    /** How many queues' partitions are kept, for tests. */
    int cachedQueues() {
        return byQueue.size();
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

    /** The Hazelcast partition that holds the queue partition's replicated state. */
    public int partitionId(String queueName, int partition) {
        return partitionOf(queueName, partition).getPartitionId();
    }

    private Partition partitionOf(String queueName, int partition) {
        if (partition < 0) {
            return lookup(queueName, partition);
        }
        Partition[] known = byQueue.get(queueName);
        if (known == null || partition >= known.length) {
            if (!cacheable.test(queueName)) {
                return lookup(queueName, partition);
            }
            known = byQueue.compute(queueName, (q, old) -> {
                Partition[] grown = new Partition[Math.max(partition + 1, old == null ? 0 : old.length)];
                for (int i = 0; i < grown.length; i++) {
                    grown[i] = old != null && i < old.length ? old[i] : lookup(q, i);
                }
                return grown;
            });
        }
        return known[partition];
    }

    /** Hazelcast's partition for the queue partition's key, looked up afresh (it hashes the serialized key). */
    private Partition lookup(String queueName, int partition) {
        return partitions.getPartition(new PartitionKey(queueName, partition).toString());
    }

    /** Whether the member serves batched partition requests (see {@link #BATCHES_ATTRIBUTE}). */
    public static boolean takesBatches(Member member) {
        return member.getAttribute(BATCHES_ATTRIBUTE) != null;
    }

    /** Whether the member reads forwarded requests in bundles (see {@link #BUNDLES_ATTRIBUTE}). */
    public static boolean takesBundles(Member member) {
        return member.getAttribute(BUNDLES_ATTRIBUTE) != null;
    }

    public static String nodeId(Member member) {
        return member.getAttribute(NODE_ID_ATTRIBUTE);
    }
}
