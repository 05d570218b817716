package io.sluice.cluster;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.core.HazelcastInstanceAware;
import com.hazelcast.map.EntryProcessor;
import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import com.hazelcast.nio.serialization.DataSerializable;
import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;

/**
 * One loop turn's changes to one queue partition, applied to its keys on the Hazelcast
 * partition thread of the primary replica, and only if that primary is the member that made
 * them: the partition's owner. That fences a node that lost the partition: a write it issued
 * just before a migration, and that Hazelcast retried onto the new primary, is refused there
 * instead of landing after the new owner rebuilt the partition (it would resurrect a deleted
 * message or hide a new one). Backups apply the changes without the check.
 */
public final class CommitEntries
        implements EntryProcessor<String, byte[], Boolean>, DataSerializable, HazelcastInstanceAware {
    private static final long serialVersionUID = 1L;

    private UUID committer;
    /** Key → new value; a null value deletes the entry. */
    private Map<String, byte[]> values;

    private boolean backup;
    private transient HazelcastInstance hz;
    /** Set on the primary when it refused: then no backup may apply what the primary did not. */
    private transient boolean refused;

    /** For deserialization. */
    public CommitEntries() {}

    CommitEntries(UUID committer, Map<String, byte[]> values, boolean backup) {
        this.committer = committer;
        this.values = values;
        this.backup = backup;
    }

    @Override
    public void setHazelcastInstance(HazelcastInstance hz) {
        this.hz = hz;
    }

    @Override
    public Boolean process(Map.Entry<String, byte[]> entry) {
        // Asked each time: a member merged back after a split brain has a new identity.
        if (!backup && !committer.equals(hz.getCluster().getLocalMember().getUuid())) {
            refused = true;
            return Boolean.FALSE;
        }
        entry.setValue(values.get(entry.getKey()));
        return Boolean.TRUE;
    }

    @Override
    public EntryProcessor<String, byte[], Boolean> getBackupProcessor() {
        // Hazelcast asks for the backup processor after running this one on the primary's keys; a
        // refused commit sends none, else the backup replica would hold changes its primary refused.
        return refused ? null : new CommitEntries(committer, values, true);
    }

    @Override
    public void writeData(ObjectDataOutput out) throws IOException {
        out.writeLong(committer.getMostSignificantBits());
        out.writeLong(committer.getLeastSignificantBits());
        out.writeBoolean(backup);
        out.writeInt(values.size());
        for (Map.Entry<String, byte[]> e : values.entrySet()) {
            out.writeString(e.getKey());
            out.writeByteArray(e.getValue());
        }
    }

    @Override
    public void readData(ObjectDataInput in) throws IOException {
        committer = new UUID(in.readLong(), in.readLong());
        backup = in.readBoolean();
        int n = in.readInt();
        values = new HashMap<>(n * 2);
        for (int i = 0; i < n; i++) {
            values.put(in.readString(), in.readByteArray());
        }
    }
}
