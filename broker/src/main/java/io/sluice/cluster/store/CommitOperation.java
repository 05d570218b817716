package io.sluice.cluster.store;

import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import com.hazelcast.spi.impl.operationservice.BackupAwareOperation;
import com.hazelcast.spi.impl.operationservice.Operation;
import java.io.IOException;
import java.util.UUID;

/**
 * One commit of one queue partition: applied on the Hazelcast partition's primary, then on its
 * synchronous backups before the caller is answered. Applied only if that primary is the member
 * that committed, the queue partition's owner: a commit of a node that lost the partition,
 * which Hazelcast retried onto the new primary, is refused there (answer false) instead of
 * landing after the new owner rebuilt the partition.
 */
public final class CommitOperation extends StoreOperation implements BackupAwareOperation {
    private UUID committer;
    private PartitionDelta delta;
    private transient boolean accepted;

    /** For deserialization, in the form its class id names (see {@link PartitionDelta}). */
    CommitOperation(StoreFormat form) {
        super(StoreSerialization.commitClassId(form));
    }

    public CommitOperation(UUID committer, PartitionDelta delta) {
        super(StoreSerialization.commitClassId(delta.form()));
        this.committer = committer;
        this.delta = delta;
    }

    @Override
    public void run() {
        PartitionStore store = getService();
        if (!store.isLocal(committer)) {
            return;
        }
        store.ensureWritable();
        store.apply(getPartitionId(), delta);
        accepted = true;
    }

    @Override
    public Object getResponse() {
        return accepted;
    }

    @Override
    public boolean shouldBackup() {
        return accepted;
    }

    @Override
    public int getSyncBackupCount() {
        return this.<PartitionStore>getService().backupCount();
    }

    @Override
    public int getAsyncBackupCount() {
        return 0;
    }

    @Override
    public Operation getBackupOperation() {
        return new CommitBackupOperation(delta);
    }

    @Override
    protected void writeInternal(ObjectDataOutput out) throws IOException {
        out.writeLong(committer.getMostSignificantBits());
        out.writeLong(committer.getLeastSignificantBits());
        delta.writeData(out);
    }

    @Override
    protected void readInternal(ObjectDataInput in) throws IOException {
        committer = new UUID(in.readLong(), in.readLong());
        delta = new PartitionDelta(StoreSerialization.commitForm(getClassId()));
        delta.readData(in);
    }
}
