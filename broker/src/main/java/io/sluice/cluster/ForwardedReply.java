package io.sluice.cluster;

import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import com.hazelcast.nio.serialization.IdentifiedDataSerializable;
import io.sluice.cluster.store.StoreSerialization;
import io.sluice.queue.AttemptRef;
import io.sluice.queue.DedupEntry;
import io.sluice.queue.Delivery;
import io.sluice.queue.ErrorCode;
import io.sluice.queue.ReceiveOutcome;
import io.sluice.queue.SendOutcome;
import io.sluice.queue.SqsException;
import java.io.IOException;
import java.util.List;

/**
 * What a partition's owner answers a {@link ForwardedRequest} with, one of:
 * <ul>
 *   <li>{@link Kind#RESULT}: what the request returned: null (also {@code Void}), a Boolean, a
 *       {@link SendOutcome}, a {@link ReceiveOutcome}, a {@link DedupEntry}, a list of
 *       {@link AttemptRef}, a {@link Delivery}, or a list of {@link SendOutcome} or of Boolean (a list is
 *       told by its first element; an empty one of any kind travels as the empty list of AttemptRef and
 *       reads back as an empty list);</li>
 *   <li>{@link Kind#ERROR}: the request failed with an {@link SqsException}, carried as its error
 *       code's name (names survive a reordering of the enum) and its message;</li>
 *   <li>{@link Kind#MOVED}: the node does not own that partition (any more): the sender looks up
 *       the owner again and retries there.</li>
 * </ul>
 */
public final class ForwardedReply implements IdentifiedDataSerializable {
    /** What a reply says; its byte on the wire is {@link #tag}, not the ordinal. */
    public enum Kind {
        RESULT(1),
        ERROR(2),
        MOVED(3);

        final byte tag;

        Kind(int tag) {
            this.tag = (byte) tag;
        }
    }

    private static final byte FORMAT = 1;

    private static final byte NULL = 0;
    private static final byte BOOLEAN = 1;
    private static final byte SEND_OUTCOME = 2;
    private static final byte RECEIVE_OUTCOME = 3;
    private static final byte DEDUP_ENTRY = 4;
    private static final byte ATTEMPT_REFS = 5;
    private static final byte DELIVERY = 6;
    private static final byte SEND_OUTCOMES = 7;
    private static final byte BOOLEANS = 8;

    private static final ForwardedReply MOVED = new ForwardedReply(Kind.MOVED, null);

    private Kind kind;
    private Object value;

    /** For Hazelcast's deserialization. */
    ForwardedReply() {}

    private ForwardedReply(Kind kind, Object value) {
        this.kind = kind;
        this.value = value;
    }

    /** @param value what the request returned; see the class comment for the types a reply carries */
    public static ForwardedReply result(Object value) {
        return new ForwardedReply(Kind.RESULT, value);
    }

    public static ForwardedReply error(SqsException e) {
        return new ForwardedReply(Kind.ERROR, e);
    }

    public static ForwardedReply moved() {
        return MOVED;
    }

    public Kind kind() {
        return kind;
    }

    /** The result of a RESULT reply; throws the SqsException of an ERROR reply, IllegalStateException for MOVED. */
    public Object get() {
        return switch (kind) {
            case RESULT -> value;
            case ERROR -> throw (SqsException) value;
            case MOVED -> throw new IllegalStateException("the partition moved");
        };
    }

    @Override
    public int getFactoryId() {
        return WireSerialization.FACTORY_ID;
    }

    @Override
    public int getClassId() {
        return WireSerialization.REPLY;
    }

    @Override
    public void writeData(ObjectDataOutput out) throws IOException {
        out.writeByte(FORMAT);
        out.writeByte(kind.tag);
        switch (kind) {
            case RESULT -> writeResult(out, value);
            case ERROR -> {
                SqsException e = (SqsException) value;
                out.writeString(e.code() == null ? null : e.code().name());
                out.writeString(e.getMessage());
            }
            case MOVED -> {}
        }
    }

    @Override
    public void readData(ObjectDataInput in) throws IOException {
        byte format = in.readByte();
        if (format < 1) {
            throw new IOException("unknown forwarded reply format " + format);
        }
        byte tag = in.readByte();
        if (tag == Kind.RESULT.tag) {
            kind = Kind.RESULT;
            value = readResult(in);
        } else if (tag == Kind.ERROR.tag) {
            kind = Kind.ERROR;
            String code = in.readString();
            value = new SqsException(StoreSerialization.byName(ErrorCode.class, code), in.readString());
        } else if (tag == Kind.MOVED.tag) {
            kind = Kind.MOVED;
        } else {
            throw new IOException("unknown forwarded reply kind " + tag);
        }
    }

    private static void writeResult(ObjectDataOutput out, Object v) throws IOException {
        if (v == null) {
            out.writeByte(NULL);
        } else if (v instanceof Boolean b) {
            out.writeByte(BOOLEAN);
            out.writeBoolean(b);
        } else if (v instanceof SendOutcome s) {
            out.writeByte(SEND_OUTCOME);
            writeSendOutcome(out, s);
        } else if (v instanceof List<?> list && !list.isEmpty() && list.get(0) instanceof SendOutcome) {
            out.writeByte(SEND_OUTCOMES);
            StoreSerialization.writeList(out, list, (o, e) -> writeSendOutcome(o, (SendOutcome) e));
        } else if (v instanceof List<?> list && !list.isEmpty() && list.get(0) instanceof Boolean) {
            out.writeByte(BOOLEANS);
            StoreSerialization.writeList(out, list, (o, e) -> o.writeBoolean((Boolean) e));
        } else if (v instanceof ReceiveOutcome o) {
            out.writeByte(RECEIVE_OUTCOME);
            StoreSerialization.writeList(out, o.delivered(), ForwardedReply::writeDelivery);
            StoreSerialization.writeList(out, o.toMove(), ForwardedReply::writeDelivery);
        } else if (v instanceof DedupEntry d) {
            out.writeByte(DEDUP_ENTRY);
            StoreSerialization.writeDedup(out, d);
        } else if (v instanceof List<?> list) {
            for (Object o : list) {
                if (!(o instanceof AttemptRef)) {
                    throw new IllegalArgumentException("cannot send list element " + o);
                }
            }
            @SuppressWarnings("unchecked")
            List<AttemptRef> refs = (List<AttemptRef>) list;
            out.writeByte(ATTEMPT_REFS);
            StoreSerialization.writeRefs(out, refs);
        } else if (v instanceof Delivery d) {
            out.writeByte(DELIVERY);
            writeDelivery(out, d);
        } else {
            throw new IllegalArgumentException(
                    "cannot send a result of type " + v.getClass().getName());
        }
    }

    private static Object readResult(ObjectDataInput in) throws IOException {
        byte type = in.readByte();
        return switch (type) {
            case NULL -> null;
            case BOOLEAN -> in.readBoolean();
            case SEND_OUTCOME -> readSendOutcome(in);
            case SEND_OUTCOMES -> StoreSerialization.readList(in, ForwardedReply::readSendOutcome);
            case BOOLEANS -> StoreSerialization.readList(in, ObjectDataInput::readBoolean);
            case RECEIVE_OUTCOME ->
                new ReceiveOutcome(
                        StoreSerialization.readList(in, ForwardedReply::readDelivery),
                        StoreSerialization.readList(in, ForwardedReply::readDelivery));
            case DEDUP_ENTRY -> StoreSerialization.readDedup(in);
            case ATTEMPT_REFS -> StoreSerialization.readRefs(in);
            case DELIVERY -> readDelivery(in);
            default -> throw new IOException("unknown result type " + type);
        };
    }

    private static void writeSendOutcome(ObjectDataOutput out, SendOutcome s) throws IOException {
        out.writeString(s.messageId());
        out.writeString(s.sequenceNumber());
        out.writeBoolean(s.duplicate());
    }

    private static SendOutcome readSendOutcome(ObjectDataInput in) throws IOException {
        return new SendOutcome(in.readString(), in.readString(), in.readBoolean());
    }

    private static void writeDelivery(ObjectDataOutput out, Delivery d) throws IOException {
        out.writeString(d.messageId());
        out.writeLong(d.receiptToken());
        out.writeString(d.body());
        out.writeString(d.md5OfBody());
        StoreSerialization.writeAttributes(out, d.attributes());
        StoreSerialization.writeAttributes(out, d.systemAttributes());
        out.writeLong(d.sentTimestamp());
        out.writeString(d.senderId());
        out.writeInt(d.receiveCount());
        out.writeLong(d.firstReceiveTimestamp());
        out.writeString(d.messageGroupId());
        out.writeString(d.deduplicationId());
        out.writeString(d.sequenceNumber());
        out.writeString(d.deadLetterSourceArn());
    }

    private static Delivery readDelivery(ObjectDataInput in) throws IOException {
        return new Delivery(
                in.readString(),
                in.readLong(),
                in.readString(),
                in.readString(),
                StoreSerialization.readAttributes(in),
                StoreSerialization.readAttributes(in),
                in.readLong(),
                in.readString(),
                in.readInt(),
                in.readLong(),
                in.readString(),
                in.readString(),
                in.readString(),
                in.readString());
    }

    @Override
    public String toString() {
        return "ForwardedReply{" + kind + " " + value + "}";
    }
}
