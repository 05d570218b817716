package io.sluice.cluster.store;

import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import com.hazelcast.spi.impl.operationservice.BackupOperation;
import java.io.IOException;

/** A commit applied on a backup replica, after its primary took it. */
public final class CommitBackupOperation extends StoreOperation implements BackupOperation {
    private PartitionDelta delta;

    /** For deserialization, in the form its class id names (see {@link PartitionDelta}). */
    CommitBackupOperation(StoreFormat form) {
        super(StoreSerialization.commitBackupClassId(form));
    }

    CommitBackupOperation(PartitionDelta delta) {
        super(StoreSerialization.commitBackupClassId(delta.form()));
        this.delta = delta;
    }

    /** The changes it applies. */
    PartitionDelta delta() {
        return delta;
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
        delta = new PartitionDelta(StoreSerialization.commitBackupForm(getClassId()));
        delta.readData(in);
    }
}
