package io.sluice.cluster.store;

import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import com.hazelcast.nio.serialization.IdentifiedDataSerializable;
import com.hazelcast.spi.impl.operationservice.Operation;
import com.hazelcast.spi.impl.operationservice.PartitionAwareOperation;
import com.hazelcast.spi.impl.operationservice.ReadonlyOperation;
import java.io.IOException;
import java.util.UUID;

/**
 * Reads a queue partition's records on its primary, for the node that is to run it. Answers
 * null unless that primary is the requesting member (the partition moved on meanwhile).
 */
public final class LoadOperation extends Operation
        implements PartitionAwareOperation, ReadonlyOperation, IdentifiedDataSerializable {
    private UUID requester;
    private String partitionKey;
    private transient StoredPartition result;

    /** For deserialization. */
    public LoadOperation() { }

    public LoadOperation(UUID requester, String partitionKey) {
        this.requester = requester;
        this.partitionKey = partitionKey;
    }

    @Override
    public void run() {
        PartitionStore store = getService();
        if (store.isLocal(requester)) {
            result = store.copyOf(getPartitionId(), partitionKey);
        }
    }

    @Override
    public Object getResponse() { return result; }

    @Override
    public String getServiceName() { return PartitionStore.SERVICE_NAME; }

    @Override
    public int getFactoryId() { return StoreSerialization.FACTORY_ID; }

    @Override
    public int getClassId() { return StoreSerialization.LOAD; }

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
