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
 *
 * <p>Standing alone it is the answer of a {@link LoadOperation}, which only ever goes to the
 * member that asked, on the same member, so its form names the incarnation; inside a {@link
 * ReplicationOperation} it travels in the form that operation names.
 */
public final class StoredPartition implements IdentifiedDataSerializable {
    final LinkedHashMap<String, StoredMessage> messages;
    final HashMap<String, DedupEntry> dedup;
    final HashMap<String, StoredAttempt> attempts;
    /** The incarnation of the queue the records belong to, or {@link PartitionSnapshot#UNKNOWN_INCARNATION}. */
    long incarnation;
    /** The form it travels in standing alone: this release's, or the older one a factory read it in. */
    private StoreFormat standaloneForm = StoreFormat.CURRENT;

    public StoredPartition() {
        this(new LinkedHashMap<>(), new HashMap<>(), new HashMap<>(), PartitionSnapshot.UNKNOWN_INCARNATION);
    }

    private StoredPartition(
            LinkedHashMap<String, StoredMessage> messages,
            HashMap<String, DedupEntry> dedup,
            HashMap<String, StoredAttempt> attempts,
            long incarnation) {
        this.messages = messages;
        this.dedup = dedup;
        this.attempts = attempts;
        this.incarnation = incarnation;
    }

    /** For deserialization of the form older releases wrote standing alone, without the incarnation. */
    static StoredPartition inOlderForm() {
        StoredPartition state = new StoredPartition();
        state.standaloneForm = StoreFormat.WHOLE_RECORDS;
        return state;
    }

    StoredPartition copy() {
        return new StoredPartition(
                new LinkedHashMap<>(messages), new HashMap<>(dedup), new HashMap<>(attempts), incarnation);
    }

    /**
     * Takes {@code incarnation} as the one its records belong to, dropping them first when they
     * belong to another ({@link PartitionSnapshot#differ}); an unknown incarnation changes nothing.
     */
    void adopt(long incarnation) {
        if (incarnation == PartitionSnapshot.UNKNOWN_INCARNATION) {
            return;
        }
        if (PartitionSnapshot.differ(this.incarnation, incarnation)) {
            messages.clear();
            dedup.clear();
            attempts.clear();
        }
        this.incarnation = incarnation;
    }

    boolean isEmpty() {
        return messages.isEmpty() && dedup.isEmpty() && attempts.isEmpty();
    }

    public PartitionSnapshot toSnapshot() {
        return new PartitionSnapshot(new ArrayList<>(messages.values()), dedup, attempts, incarnation);
    }

    @Override
    public int getFactoryId() {
        return StoreSerialization.FACTORY_ID;
    }

    @Override
    public int getClassId() {
        return StoreSerialization.stateClassId(standaloneForm);
    }

    @Override
    public void writeData(ObjectDataOutput out) throws IOException {
        write(out, standaloneForm);
    }

    @Override
    public void readData(ObjectDataInput in) throws IOException {
        read(in, standaloneForm);
    }

    /** Writes the records in {@code form}: the incarnation only where that form carries it. */
    void write(ObjectDataOutput out, StoreFormat form) throws IOException {
        StoreSerialization.writeNullableValues(out, messages, StoreSerialization::writeMessage);
        StoreSerialization.writeNullableValues(out, dedup, StoreSerialization::writeDedup);
        StoreSerialization.writeNullableValues(out, attempts, StoreSerialization::writeAttempt);
        if (form.carriesIncarnation()) {
            out.writeLong(incarnation);
        }
    }

    /** Reads what {@link #write} wrote in {@code form}. */
    void read(ObjectDataInput in, StoreFormat form) throws IOException {
        messages.putAll(StoreSerialization.readNullableValues(in, StoreSerialization::readMessage));
        dedup.putAll(StoreSerialization.readNullableValues(in, StoreSerialization::readDedup));
        attempts.putAll(StoreSerialization.readNullableValues(in, StoreSerialization::readAttempt));
        incarnation = form.carriesIncarnation() ? in.readLong() : PartitionSnapshot.UNKNOWN_INCARNATION;
    }
}
