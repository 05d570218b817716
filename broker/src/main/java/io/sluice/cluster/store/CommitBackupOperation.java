package io.sluice.cluster.store;

import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import com.hazelcast.spi.impl.operationservice.BackupOperation;
import java.io.IOException;

/** A commit applied on a backup replica, after its primary took it. */
public final class CommitBackupOperation extends StoreOperation implements BackupOperation {
    private PartitionDelta delta;

    /** For deserialization. */
    public CommitBackupOperation() {
        super(StoreSerialization.COMMIT_BACKUP);
    }

    CommitBackupOperation(PartitionDelta delta) {
        super(StoreSerialization.COMMIT_BACKUP);
        this.delta = delta;
    }

    @Override
    public void run() {
        this.<PartitionStore>getService().apply(getPartitionId(), delta);
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
