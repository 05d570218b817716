package io.sluice.cluster.store;

import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import com.hazelcast.nio.serialization.IdentifiedDataSerializable;
import io.sluice.queue.DedupEntry;
import io.sluice.queue.PartitionChange;
import io.sluice.queue.StoredAttempt;
import io.sluice.queue.StoredMessage;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The changes one loop turn made to one queue partition, as they travel to its primary and
 * backups: the latest value of every record touched (null: removed), so a message stored and
 * deleted in the same turn is only deleted.
 */
public final class PartitionDelta implements IdentifiedDataSerializable {
    private String partitionKey;
    private LinkedHashMap<String, StoredMessage> messages;
    private LinkedHashMap<String, DedupEntry> dedup;
    private LinkedHashMap<String, StoredAttempt> attempts;

    /** For deserialization. */
    public PartitionDelta() {}

    /** Built on the partition's loop: message records are copied (snapshot) here, on their owner's thread. */
    public PartitionDelta(String partitionKey, List<PartitionChange> changes) {
        this.partitionKey = partitionKey;
        this.messages = new LinkedHashMap<>();
        this.dedup = new LinkedHashMap<>();
        this.attempts = new LinkedHashMap<>();
        for (PartitionChange c : changes) {
            if (c instanceof PartitionChange.MessageStored m) {
                messages.put(m.messageId(), m.record().snapshot());
            } else if (c instanceof PartitionChange.MessageRemoved m) {
                messages.put(m.messageId(), null);
            } else if (c instanceof PartitionChange.DedupStored d) {
                dedup.put(d.key(), d.entry());
            } else if (c instanceof PartitionChange.DedupRemoved d) {
                dedup.put(d.key(), null);
            } else if (c instanceof PartitionChange.AttemptStored a) {
                attempts.put(a.attemptId(), a.attempt());
            } else if (c instanceof PartitionChange.AttemptRemoved a) {
                attempts.put(a.attemptId(), null);
            } else {
                throw new IllegalArgumentException("unknown change " + c);
            }
        }
    }

    /** "queue#index" of the queue partition these changes belong to. */
    public String partitionKey() {
        return partitionKey;
    }

    void applyTo(StoredPartition state) {
        merge(messages, state.messages);
        merge(dedup, state.dedup);
        merge(attempts, state.attempts);
    }

    /** Puts every change into {@code into}; a null value removes the key. */
    private static <V> void merge(Map<String, V> changes, Map<String, V> into) {
        changes.forEach((key, value) -> {
            if (value == null) {
                into.remove(key);
            } else {
                into.put(key, value);
            }
        });
    }

    @Override
    public int getFactoryId() {
        return StoreSerialization.FACTORY_ID;
    }

    @Override
    public int getClassId() {
        return StoreSerialization.DELTA;
    }

    @Override
    public void writeData(ObjectDataOutput out) throws IOException {
        out.writeString(partitionKey);
        StoreSerialization.writeNullableValues(out, messages, StoreSerialization::writeMessage);
        StoreSerialization.writeNullableValues(out, dedup, StoreSerialization::writeDedup);
        StoreSerialization.writeNullableValues(out, attempts, StoreSerialization::writeAttempt);
    }

    @Override
    public void readData(ObjectDataInput in) throws IOException {
        partitionKey = in.readString();
        messages = StoreSerialization.readNullableValues(in, StoreSerialization::readMessage);
        dedup = StoreSerialization.readNullableValues(in, StoreSerialization::readDedup);
        attempts = StoreSerialization.readNullableValues(in, StoreSerialization::readAttempt);
    }
}
