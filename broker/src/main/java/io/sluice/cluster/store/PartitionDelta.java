package io.sluice.cluster.store;

import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import com.hazelcast.nio.serialization.IdentifiedDataSerializable;
import io.sluice.queue.DedupEntry;
import io.sluice.queue.DeliveryState;
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
 *
 * <p>With {@code deliveries}, a message stored in an earlier commit whose delivery alone changed
 * (received, its visibility changed) travels as its {@link DeliveryState}, without its body and
 * attributes, which its replicas already hold. That form is written only when every member reads
 * it ({@link PartitionStore#everyMemberReadsDeliveries()}): an older member reads the whole records only.
 */
public final class PartitionDelta implements IdentifiedDataSerializable {
    private final boolean withDeliveries;
    private String partitionKey;
    private LinkedHashMap<String, StoredMessage> messages;
    private LinkedHashMap<String, DedupEntry> dedup;
    private LinkedHashMap<String, StoredAttempt> attempts;
    private LinkedHashMap<String, DeliveryState> deliveries;

    /** For deserialization: a delta written without deliveries. */
    public PartitionDelta() {
        this(false);
    }

    /** For deserialization, in the form its operation's class id names. */
    PartitionDelta(boolean withDeliveries) {
        this.withDeliveries = withDeliveries;
    }

    /**
     * Built on the partition's loop: message records are copied (snapshot) here, on their owner's thread.
     *
     * @param withDeliveries whether a change of delivery alone travels as its {@link DeliveryState}
     */
    public PartitionDelta(String partitionKey, List<PartitionChange> changes, boolean withDeliveries) {
        this.withDeliveries = withDeliveries;
        this.partitionKey = partitionKey;
        this.messages = new LinkedHashMap<>();
        this.dedup = new LinkedHashMap<>();
        this.attempts = new LinkedHashMap<>();
        this.deliveries = new LinkedHashMap<>();
        for (PartitionChange c : changes) {
            if (c instanceof PartitionChange.MessageStored m) {
                if (withDeliveries && m.deliveryOnly() && !messages.containsKey(m.messageId())) {
                    deliveries.put(m.messageId(), m.record().deliveryState());
                } else {
                    deliveries.remove(m.messageId());
                    messages.put(m.messageId(), m.record().snapshot());
                }
            } else if (c instanceof PartitionChange.MessageRemoved m) {
                deliveries.remove(m.messageId());
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

    /** Whether the delta is in the form with deliveries (an operation carrying it names that by its class id). */
    boolean withDeliveries() {
        return withDeliveries;
    }

    void applyTo(StoredPartition state) {
        merge(messages, state.messages);
        merge(dedup, state.dedup);
        merge(attempts, state.attempts);
        // A message missing here was not replicated to this member: Hazelcast's anti-entropy
        // copies the primary's records to a backup that missed a commit, so nothing is made up.
        deliveries.forEach((id, delivery) -> state.messages.computeIfPresent(id, (k, m) -> delivery.applyTo(m)));
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
        if (withDeliveries) {
            StoreSerialization.writeNullableValues(out, deliveries, StoreSerialization::writeDelivery);
        }
    }

    @Override
    public void readData(ObjectDataInput in) throws IOException {
        partitionKey = in.readString();
        messages = StoreSerialization.readNullableValues(in, StoreSerialization::readMessage);
        dedup = StoreSerialization.readNullableValues(in, StoreSerialization::readDedup);
        attempts = StoreSerialization.readNullableValues(in, StoreSerialization::readAttempt);
        deliveries = withDeliveries
                ? StoreSerialization.readNullableValues(in, StoreSerialization::readDelivery)
                : new LinkedHashMap<>();
    }
}
