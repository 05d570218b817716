package io.sluice.cluster.store;

import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import com.hazelcast.nio.serialization.DataSerializableFactory;
import com.hazelcast.nio.serialization.IdentifiedDataSerializable;
import io.sluice.queue.AttemptRef;
import io.sluice.queue.DedupEntry;
import io.sluice.queue.DeliveryState;
import io.sluice.queue.MessageAttributeValue;
import io.sluice.queue.MessageState;
import io.sluice.queue.StoredAttempt;
import io.sluice.queue.StoredMessage;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Hazelcast's {@link IdentifiedDataSerializable} form of what the partition store replicates:
 * the factory that names every type by a class id, and the field layouts of the queue's
 * values (which stay free of Hazelcast types). Every stored value starts with a format version,
 * so a later release can read what this one wrote (a rolling upgrade) and add fields after it.
 * Forwarded requests and replies ({@code io.sluice.cluster.WireSerialization}) write messages,
 * attributes and references with the same methods.
 */
public final class StoreSerialization implements DataSerializableFactory {
    /** Registered in the member configuration; unique among this cluster's factories. */
    public static final int FACTORY_ID = 0x51CE;

    static final int COMMIT = 1;
    static final int COMMIT_BACKUP = 2;
    static final int LOAD = 3;
    static final int REPLICATION = 4;
    static final int DELTA = 5;
    static final int STATE = 6;
    /** {@link #COMMIT} and {@link #COMMIT_BACKUP} whose delta carries deliveries ({@link PartitionDelta}). */
    static final int COMMIT_WITH_DELIVERIES = 7;

    static final int COMMIT_BACKUP_WITH_DELIVERIES = 8;
    /** {@link #COMMIT} and {@link #COMMIT_BACKUP} whose delta names its queue's incarnation ({@link StoreFormat#INCARNATIONS}). */
    static final int COMMIT_WITH_INCARNATION = 9;

    static final int COMMIT_BACKUP_WITH_INCARNATION = 10;
    /** {@link #REPLICATION} and {@link #STATE} whose records name their queue's incarnation. */
    static final int REPLICATION_WITH_INCARNATION = 11;

    static final int STATE_WITH_INCARNATION = 12;

    /** The class ids of a {@link CommitOperation} by the form its delta travels in, oldest first. */
    private static final int[] COMMIT_IDS = {COMMIT, COMMIT_WITH_DELIVERIES, COMMIT_WITH_INCARNATION};
    /** The class ids of a {@link CommitBackupOperation} by the form its delta travels in, oldest first. */
    private static final int[] COMMIT_BACKUP_IDS = {
        COMMIT_BACKUP, COMMIT_BACKUP_WITH_DELIVERIES, COMMIT_BACKUP_WITH_INCARNATION
    };

    /** The layout of a stored message written by this release. */
    private static final byte MESSAGE_FORMAT = 1;
    /** The layout of a delivery state written by this release. */
    private static final byte DELIVERY_FORMAT = 1;

    @Override
    public IdentifiedDataSerializable create(int classId) {
        return switch (classId) {
            case LOAD -> new LoadOperation();
            case REPLICATION -> new ReplicationOperation(StoreFormat.WHOLE_RECORDS);
            case DELTA -> new PartitionDelta();
            case STATE -> StoredPartition.inOlderForm();
            case COMMIT, COMMIT_WITH_DELIVERIES, COMMIT_WITH_INCARNATION -> new CommitOperation(commitForm(classId));
            case COMMIT_BACKUP, COMMIT_BACKUP_WITH_DELIVERIES, COMMIT_BACKUP_WITH_INCARNATION ->
                new CommitBackupOperation(commitBackupForm(classId));
            case REPLICATION_WITH_INCARNATION -> new ReplicationOperation(StoreFormat.INCARNATIONS);
            case STATE_WITH_INCARNATION -> new StoredPartition();
            default -> null;
        };
    }

    static int commitClassId(StoreFormat form) {
        return COMMIT_IDS[form.ordinal()];
    }

    static StoreFormat commitForm(int classId) {
        return formNamedBy(COMMIT_IDS, classId);
    }

    static int commitBackupClassId(StoreFormat form) {
        return COMMIT_BACKUP_IDS[form.ordinal()];
    }

    static StoreFormat commitBackupForm(int classId) {
        return formNamedBy(COMMIT_BACKUP_IDS, classId);
    }

    /** A {@link ReplicationOperation}'s class id: its records name their incarnation from that form on. */
    static int replicationClassId(StoreFormat form) {
        return form.carriesIncarnation() ? REPLICATION_WITH_INCARNATION : REPLICATION;
    }

    /** A {@link StoredPartition}'s class id standing alone, as {@link #replicationClassId}. */
    static int stateClassId(StoreFormat form) {
        return form.carriesIncarnation() ? STATE_WITH_INCARNATION : STATE;
    }

    private static StoreFormat formNamedBy(int[] ids, int classId) {
        for (int i = 0; i < ids.length; i++) {
            if (ids[i] == classId) {
                return StoreFormat.values()[i];
            }
        }
        throw new IllegalArgumentException("no form has the class id " + classId);
    }

    /** A message's whole state; also what a forwarded SendMessage carries (its state still null). */
    public static void writeMessage(ObjectDataOutput out, StoredMessage m) throws IOException {
        out.writeByte(MESSAGE_FORMAT);
        out.writeString(m.messageId());
        out.writeString(m.body());
        writeAttributes(out, m.attributes());
        writeAttributes(out, m.systemAttributes());
        out.writeLong(m.sentTimestamp());
        out.writeString(m.senderId());
        out.writeString(m.messageGroupId());
        out.writeString(m.deduplicationId());
        out.writeString(m.sequenceNumber());
        out.writeString(m.deadLetterSourceArn());
        out.writeString(m.state() == null ? null : m.state().name());
        out.writeLong(m.visibleAt());
        out.writeInt(m.receiveCount());
        out.writeLong(m.firstReceiveTimestamp());
        out.writeLong(m.receivedAt());
        out.writeLong(m.receiptToken());
    }

    public static StoredMessage readMessage(ObjectDataInput in) throws IOException {
        byte format = in.readByte();
        if (format < 1) {
            throw new IOException("unknown stored message format " + format);
        }
        return new StoredMessage(
                in.readString(),
                in.readString(),
                readAttributes(in),
                readAttributes(in),
                in.readLong(),
                in.readString(),
                in.readString(),
                in.readString(),
                in.readString(),
                in.readString(),
                byName(MessageState.class, in.readString()),
                in.readLong(),
                in.readInt(),
                in.readLong(),
                in.readLong(),
                in.readLong());
    }

    public static void writeAttributes(ObjectDataOutput out, Map<String, MessageAttributeValue> attributes)
            throws IOException {
        if (attributes == null) {
            out.writeInt(0);
            return;
        }
        out.writeInt(attributes.size());
        for (Map.Entry<String, MessageAttributeValue> e : attributes.entrySet()) {
            out.writeString(e.getKey());
            out.writeString(e.getValue().dataType());
            out.writeString(e.getValue().stringValue());
            out.writeByteArray(e.getValue().binaryValue());
        }
    }

    public static Map<String, MessageAttributeValue> readAttributes(ObjectDataInput in) throws IOException {
        int n = in.readInt();
        if (n == 0) {
            return Map.of();
        }
        if (n < 0) {
            throw new IOException("negative attribute count " + n);
        }
        // SQS allows 10 attributes per message; a larger count in garbage must not allocate much.
        Map<String, MessageAttributeValue> out = new LinkedHashMap<>(Math.min(n, 16) * 2);
        for (int i = 0; i < n; i++) {
            out.put(in.readString(), new MessageAttributeValue(in.readString(), in.readString(), in.readByteArray()));
        }
        return out;
    }

    public static void writeDedup(ObjectDataOutput out, DedupEntry e) throws IOException {
        out.writeString(e.messageId());
        out.writeString(e.sequenceNumber());
        out.writeLong(e.expiresAt());
    }

    public static DedupEntry readDedup(ObjectDataInput in) throws IOException {
        return new DedupEntry(in.readString(), in.readString(), in.readLong());
    }

    static void writeDelivery(ObjectDataOutput out, DeliveryState d) throws IOException {
        out.writeByte(DELIVERY_FORMAT);
        out.writeString(d.state() == null ? null : d.state().name());
        out.writeLong(d.visibleAt());
        out.writeInt(d.receiveCount());
        out.writeLong(d.firstReceiveTimestamp());
        out.writeLong(d.receivedAt());
        out.writeLong(d.receiptToken());
    }

    static DeliveryState readDelivery(ObjectDataInput in) throws IOException {
        byte format = in.readByte();
        if (format < 1) {
            throw new IOException("unknown delivery state format " + format);
        }
        return new DeliveryState(
                byName(MessageState.class, in.readString()),
                in.readLong(),
                in.readInt(),
                in.readLong(),
                in.readLong(),
                in.readLong());
    }

    static void writeAttempt(ObjectDataOutput out, StoredAttempt a) throws IOException {
        out.writeLong(a.expiresAt());
        writeRefs(out, a.refs());
    }

    static StoredAttempt readAttempt(ObjectDataInput in) throws IOException {
        long expiresAt = in.readLong();
        return new StoredAttempt(readRefs(in), expiresAt);
    }

    /** The messages one ReceiveMessage attempt returned, as a count then each one's partition, id and token. */
    public static void writeRefs(ObjectDataOutput out, List<AttemptRef> refs) throws IOException {
        writeList(out, refs, (o, r) -> {
            o.writeInt(r.partition());
            o.writeString(r.messageId());
            o.writeLong(r.token());
        });
    }

    public static List<AttemptRef> readRefs(ObjectDataInput in) throws IOException {
        return readList(in, i -> new AttemptRef(i.readInt(), i.readString(), i.readLong()));
    }

    /** A list as its size, then each element as {@code writer} writes it. */
    public static <E> void writeList(ObjectDataOutput out, List<E> list, Writer<E> writer) throws IOException {
        out.writeInt(list.size());
        for (E e : list) {
            writer.write(out, e);
        }
    }

    /** What {@link #writeList} wrote, unmodifiable; a negative size is an IOException. */
    public static <E> List<E> readList(ObjectDataInput in, Reader<E> reader) throws IOException {
        int n = in.readInt();
        if (n < 0) {
            throw new IOException("negative list size " + n);
        }
        if (n == 0) {
            return List.of();
        }
        // Not sized by n before its elements are read: a corrupt size must not allocate.
        List<E> list = new ArrayList<>(Math.min(n, 16));
        for (int i = 0; i < n; i++) {
            list.add(reader.read(in));
        }
        return Collections.unmodifiableList(list);
    }

    /** An enum constant written by name (names survive a reordering), null for null; an unknown name is an IOException. */
    public static <E extends Enum<E>> E byName(Class<E> type, String name) throws IOException {
        if (name == null) {
            return null;
        }
        try {
            return Enum.valueOf(type, name);
        } catch (IllegalArgumentException e) {
            throw new IOException("unknown " + type.getSimpleName() + " " + name);
        }
    }

    /** A map whose null values mean "removed", as a count and key, present flag, value per entry. */
    static <V> void writeNullableValues(ObjectDataOutput out, Map<String, V> map, Writer<V> writer) throws IOException {
        out.writeInt(map.size());
        for (Map.Entry<String, V> e : map.entrySet()) {
            out.writeString(e.getKey());
            out.writeBoolean(e.getValue() != null);
            if (e.getValue() != null) {
                writer.write(out, e.getValue());
            }
        }
    }

    static <V> LinkedHashMap<String, V> readNullableValues(ObjectDataInput in, Reader<V> reader) throws IOException {
        int n = in.readInt();
        LinkedHashMap<String, V> map = new LinkedHashMap<>(Math.max(4, n * 2));
        for (int i = 0; i < n; i++) {
            String key = in.readString();
            map.put(key, in.readBoolean() ? reader.read(in) : null);
        }
        return map;
    }

    @FunctionalInterface
    public interface Writer<V> {
        void write(ObjectDataOutput out, V value) throws IOException;
    }

    @FunctionalInterface
    public interface Reader<V> {
        V read(ObjectDataInput in) throws IOException;
    }
}
