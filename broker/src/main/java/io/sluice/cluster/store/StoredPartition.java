package io.sluice.cluster.store;

import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import com.hazelcast.nio.serialization.IdentifiedDataSerializable;
import io.sluice.queue.DedupEntry;
import io.sluice.queue.PartitionSnapshot;
import io.sluice.queue.StoredAttempt;
import io.sluice.queue.StoredMessage;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;

/**
 * The replicated records of one queue partition on one member (its primary or a backup):
 * touched only on the Hazelcast partition thread that holds it. The values are immutable, so a
 * copy shares them.
 */
public final class StoredPartition implements IdentifiedDataSerializable {
    final LinkedHashMap<String, StoredMessage> messages;
    final HashMap<String, DedupEntry> dedup;
    final HashMap<String, StoredAttempt> attempts;

    public StoredPartition() {
        this(new LinkedHashMap<>(), new HashMap<>(), new HashMap<>());
    }

    private StoredPartition(
            LinkedHashMap<String, StoredMessage> messages,
            HashMap<String, DedupEntry> dedup,
            HashMap<String, StoredAttempt> attempts) {
        this.messages = messages;
        this.dedup = dedup;
        this.attempts = attempts;
    }

    StoredPartition copy() {
        return new StoredPartition(new LinkedHashMap<>(messages), new HashMap<>(dedup), new HashMap<>(attempts));
    }

    boolean isEmpty() {
        return messages.isEmpty() && dedup.isEmpty() && attempts.isEmpty();
    }

    public PartitionSnapshot toSnapshot() {
        return new PartitionSnapshot(new ArrayList<>(messages.values()), dedup, attempts);
    }

    @Override
    public int getFactoryId() {
        return StoreSerialization.FACTORY_ID;
    }

    @Override
    public int getClassId() {
        return StoreSerialization.STATE;
    }

    @Override
    public void writeData(ObjectDataOutput out) throws IOException {
        StoreSerialization.writeNullableValues(out, messages, StoreSerialization::writeMessage);
        StoreSerialization.writeNullableValues(out, dedup, StoreSerialization::writeDedup);
        StoreSerialization.writeNullableValues(out, attempts, StoreSerialization::writeAttempt);
    }

    @Override
    public void readData(ObjectDataInput in) throws IOException {
        messages.putAll(StoreSerialization.readNullableValues(in, StoreSerialization::readMessage));
        dedup.putAll(StoreSerialization.readNullableValues(in, StoreSerialization::readDedup));
        attempts.putAll(StoreSerialization.readNullableValues(in, StoreSerialization::readAttempt));
    }
}
