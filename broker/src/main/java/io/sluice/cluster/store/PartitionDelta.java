package io.sluice.cluster.store;

import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import com.hazelcast.nio.serialization.IdentifiedDataSerializable;
import io.sluice.queue.DedupEntry;
import io.sluice.queue.DeliveryState;
import io.sluice.queue.PartitionChange;
import io.sluice.queue.PartitionSnapshot;
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
 * <p>It travels in the newest {@link StoreFormat} every member reads ({@link
 * PartitionStore#clusterFormat()}). From {@link StoreFormat#DELIVERIES} on, a message stored in an
 * earlier commit whose delivery alone changed (received, its visibility changed) travels as its
 * {@link DeliveryState}, without its body and attributes, which its replicas already hold. From
 * {@link StoreFormat#INCARNATIONS} on, it names the incarnation of the queue its changes belong
 * to, and a replica drops the records of an older one before it applies them ({@link
 * PartitionStore#apply}).
 */
public final class PartitionDelta implements IdentifiedDataSerializable {
    private final StoreFormat form;
    private String partitionKey;
    private long incarnation = PartitionSnapshot.UNKNOWN_INCARNATION;
    private LinkedHashMap<String, StoredMessage> messages;
    private LinkedHashMap<String, DedupEntry> dedup;
    private LinkedHashMap<String, StoredAttempt> attempts;
    private LinkedHashMap<String, DeliveryState> deliveries;

    /** For deserialization: a delta in the oldest form. */
    public PartitionDelta() {
        this(StoreFormat.WHOLE_RECORDS);
    }

    /** For deserialization, in the form its operation's class id names. */
    PartitionDelta(StoreFormat form) {
        this.form = form;
    }

    /**
     * Built on the partition's loop: message records are copied (snapshot) here, on their owner's thread.
     *
     * @param incarnation the incarnation of the queue the changes belong to; not sent in a form
     *     that does not carry it
     * @param form the form it travels in
     */
    public PartitionDelta(String partitionKey, long incarnation, List<PartitionChange> changes, StoreFormat form) {
        this.form = form;
        this.partitionKey = partitionKey;
        if (form.carriesIncarnation()) {
            this.incarnation = incarnation;
        }
        boolean withDeliveries = form.carriesDeliveries();
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

    /** The form it travels in (an operation carrying it names that by its class id). */
    StoreFormat form() {
        return form;
    }

    /** The incarnation of the queue its changes belong to, or {@link PartitionSnapshot#UNKNOWN_INCARNATION}. */
    long incarnation() {
        return incarnation;
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
        if (form.carriesIncarnation()) {
            out.writeLong(incarnation);
        }
        StoreSerialization.writeNullableValues(out, messages, StoreSerialization::writeMessage);
        StoreSerialization.writeNullableValues(out, dedup, StoreSerialization::writeDedup);
        StoreSerialization.writeNullableValues(out, attempts, StoreSerialization::writeAttempt);
        if (form.carriesDeliveries()) {
            StoreSerialization.writeNullableValues(out, deliveries, StoreSerialization::writeDelivery);
        }
    }

    @Override
    public void readData(ObjectDataInput in) throws IOException {
        partitionKey = in.readString();
        incarnation = form.carriesIncarnation() ? in.readLong() : PartitionSnapshot.UNKNOWN_INCARNATION;
        messages = StoreSerialization.readNullableValues(in, StoreSerialization::readMessage);
        dedup = StoreSerialization.readNullableValues(in, StoreSerialization::readDedup);
        attempts = StoreSerialization.readNullableValues(in, StoreSerialization::readAttempt);
        deliveries = form.carriesDeliveries()
                ? StoreSerialization.readNullableValues(in, StoreSerialization::readDelivery)
                : new LinkedHashMap<>();
    }
}
