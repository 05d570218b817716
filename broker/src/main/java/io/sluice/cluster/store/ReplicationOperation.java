package io.sluice.cluster.store;

import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import java.io.IOException;
import java.util.HashMap;
import java.util.Map;

/**
 * Everything a Hazelcast partition holds of the store, sent to a member that becomes one of
 * its replicas (a migration, or a backup brought back in sync): each queue partition as one unit,
 * in the newest {@link StoreFormat} that member reads.
 */
public final class ReplicationOperation extends StoreOperation {
    private final StoreFormat form;
    private Map<String, StoredPartition> states;

    /** For deserialization, in the form its class id names. */
    ReplicationOperation(StoreFormat form) {
        super(StoreSerialization.replicationClassId(form));
        this.form = form;
    }

    ReplicationOperation(Map<String, StoredPartition> states, StoreFormat form) {
        this(form);
        this.states = states;
    }

    /** The records it carries, by queue partition key. */
    Map<String, StoredPartition> states() {
        return states;
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
            e.getValue().write(out, form);
        }
    }

    @Override
    protected void readInternal(ObjectDataInput in) throws IOException {
        int n = in.readInt();
        states = new HashMap<>(n * 2);
        for (int i = 0; i < n; i++) {
            String key = in.readString();
            StoredPartition state = new StoredPartition();
            state.read(in, form);
            states.put(key, state);
        }
    }
}
