package io.sluice.cluster.store;

import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import com.hazelcast.nio.serialization.IdentifiedDataSerializable;
import com.hazelcast.spi.impl.operationservice.BackupOperation;
import com.hazelcast.spi.impl.operationservice.Operation;
import java.io.IOException;

/** A commit applied on a backup replica, after its primary took it. */
public final class CommitBackupOperation extends Operation implements BackupOperation, IdentifiedDataSerializable {
    private PartitionDelta delta;

    /** For deserialization. */
    public CommitBackupOperation() {}

    CommitBackupOperation(PartitionDelta delta) {
        this.delta = delta;
    }

    @Override
    public void run() {
        this.<PartitionStore>getService().apply(getPartitionId(), delta);
    }

    @Override
    public String getServiceName() {
        return PartitionStore.SERVICE_NAME;
    }

    @Override
    public int getFactoryId() {
        return StoreSerialization.FACTORY_ID;
    }

    @Override
    public int getClassId() {
        return StoreSerialization.COMMIT_BACKUP;
    }

    @Override
    protected void writeInternal(ObjectDataOutput out) throws IOException {
        delta.writeData(out);
    }

    @Override
    protected void readInternal(ObjectDataInput in) throws IOException {
        delta = new PartitionDelta();
        delta.readData(in);
    }
}
