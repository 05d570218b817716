package io.sluice.cluster.store;

import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import java.io.IOException;
import java.util.HashMap;
import java.util.Map;

/**
 * Everything a Hazelcast partition holds of the store, sent to a member that becomes one of
 * its replicas (a migration, or a backup brought back in sync): each queue partition as one unit.
 */
public final class ReplicationOperation extends StoreOperation {
    private Map<String, StoredPartition> states;

    /** For deserialization. */
    public ReplicationOperation() {
        super(StoreSerialization.REPLICATION);
    }

    ReplicationOperation(Map<String, StoredPartition> states) {
        super(StoreSerialization.REPLICATION);
        this.states = states;
    }

    @Override
    public void run() {
        this.<PartitionStore>getService().install(getPartitionId(), states);
    }

    @Override
    protected void writeInternal(ObjectDataOutput out) throws IOException {
        out.writeInt(states.size());
        for (Map.Entry<String, StoredPartition> e : states.entrySet()) {
            out.writeString(e.getKey());
            e.getValue().writeData(out);
        }
    }

    @Override
    protected void readInternal(ObjectDataInput in) throws IOException {
        int n = in.readInt();
        states = new HashMap<>(n * 2);
        for (int i = 0; i < n; i++) {
            String key = in.readString();
            StoredPartition state = new StoredPartition();
            state.readData(in);
            states.put(key, state);
        }
    }
}
