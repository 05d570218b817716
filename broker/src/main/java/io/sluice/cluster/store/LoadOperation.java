package io.sluice.cluster.store;

import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import com.hazelcast.spi.impl.operationservice.PartitionAwareOperation;
import java.io.IOException;
import java.util.UUID;

/**
 * Reads a queue partition's records on its primary, for the node that is to run it. Answers
 * null unless that primary is the requesting member (the partition moved on meanwhile). Not a
 * read-only operation on purpose: Hazelcast lets those read a migration's source replica while
 * the destination already takes writes, and a partition rebuilt from that would miss them.
 * Refused, like a commit, while the member's side lacks the majority the split-brain protection
 * asks for.
 */
public final class LoadOperation extends StoreOperation implements PartitionAwareOperation {
    private UUID requester;
    private String partitionKey;
    private transient StoredPartition result;

    /** For deserialization. */
    public LoadOperation() {
        super(StoreSerialization.LOAD);
    }

    public LoadOperation(UUID requester, String partitionKey) {
        super(StoreSerialization.LOAD);
        this.requester = requester;
        this.partitionKey = partitionKey;
    }

    @Override
    public void run() {
        PartitionStore store = getService();
        // A member without its majority rebuilds nothing: its partitions stay unstarted, so it
        // reports not ready instead of serving state it may not write.
        store.ensureReadable();
        if (store.isLocal(requester)) {
            result = store.copyOf(getPartitionId(), partitionKey);
        }
    }

    @Override
    public Object getResponse() {
        return result;
    }

    @Override
    protected void writeInternal(ObjectDataOutput out) throws IOException {
        out.writeLong(requester.getMostSignificantBits());
        out.writeLong(requester.getLeastSignificantBits());
        out.writeString(partitionKey);
    }

    @Override
    protected void readInternal(ObjectDataInput in) throws IOException {
        requester = new UUID(in.readLong(), in.readLong());
        partitionKey = in.readString();
    }
}
