package io.sluice.cluster;

import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import com.hazelcast.nio.serialization.IdentifiedDataSerializable;
import io.sluice.cluster.store.StoreSerialization;
import io.sluice.queue.MessageRecord;
import io.sluice.queue.PartitionRequest;
import java.io.IOException;

/**
 * A partition request on its way to the partition's owner: the queue, the partition index and
 * the request. After the format byte comes a tag byte for the request's type, then its fields;
 * a {@code Send} carries its message as {@link MessageRecord#snapshot()}, a {@code SendBatch} a
 * count and that many sends, a {@code DeleteBatch} a count and that many deletes.
 */
public final class ForwardedRequest implements IdentifiedDataSerializable {
    private static final byte FORMAT = 1;

    private static final byte SEND = 1;
    private static final byte RECEIVE = 2;
    private static final byte DELETE = 3;
    private static final byte CHANGE_VISIBILITY = 4;
    private static final byte PURGE = 5;
    private static final byte RESERVE_DEDUP = 6;
    private static final byte CONFIRM_DEDUP = 7;
    private static final byte REMEMBER_ATTEMPT = 8;
    private static final byte RECALL_ATTEMPT = 9;
    private static final byte REDELIVER = 10;
    private static final byte SEND_BATCH = 11;
    private static final byte DELETE_BATCH = 12;

    private String queueName;
    private int partition;
    private PartitionRequest<?> request;

    /** For Hazelcast's deserialization. */
    ForwardedRequest() {}

    public ForwardedRequest(String queueName, int partition, PartitionRequest<?> request) {
        this.queueName = queueName;
        this.partition = partition;
        this.request = request;
    }

    public String queueName() {
        return queueName;
    }

    public int partition() {
        return partition;
    }

    public PartitionRequest<?> request() {
        return request;
    }

    @Override
    public int getFactoryId() {
        return WireSerialization.FACTORY_ID;
    }

    @Override
    public int getClassId() {
        return WireSerialization.REQUEST;
    }

    @Override
    public void writeData(ObjectDataOutput out) throws IOException {
        out.writeByte(FORMAT);
        out.writeString(queueName);
        out.writeInt(partition);
        if (request instanceof PartitionRequest.Send s) {
            out.writeByte(SEND);
            writeSend(out, s);
        } else if (request instanceof PartitionRequest.SendBatch b) {
            out.writeByte(SEND_BATCH);
            StoreSerialization.writeList(out, b.parts(), ForwardedRequest::writeSend);
        } else if (request instanceof PartitionRequest.Receive r) {
            out.writeByte(RECEIVE);
            out.writeInt(r.max());
            out.writeLong(r.visibilityMillis());
            out.writeInt(r.maxReceiveCount());
            out.writeLong(r.moveMillis());
        } else if (request instanceof PartitionRequest.Delete d) {
            out.writeByte(DELETE);
            writeDelete(out, d);
        } else if (request instanceof PartitionRequest.DeleteBatch b) {
            out.writeByte(DELETE_BATCH);
            StoreSerialization.writeList(out, b.parts(), ForwardedRequest::writeDelete);
        } else if (request instanceof PartitionRequest.ChangeVisibility c) {
            out.writeByte(CHANGE_VISIBILITY);
            out.writeString(c.messageId());
            out.writeLong(c.token());
            out.writeLong(c.timeoutMillis());
            out.writeString(c.receiptHandle());
        } else if (request instanceof PartitionRequest.Purge) {
            out.writeByte(PURGE);
        } else if (request instanceof PartitionRequest.ReserveDedup r) {
            out.writeByte(RESERVE_DEDUP);
            out.writeString(r.key());
            out.writeString(r.messageId());
        } else if (request instanceof PartitionRequest.ConfirmDedup c) {
            out.writeByte(CONFIRM_DEDUP);
            out.writeString(c.key());
            out.writeString(c.messageId());
            out.writeString(c.sequenceNumber());
        } else if (request instanceof PartitionRequest.RememberAttempt r) {
            out.writeByte(REMEMBER_ATTEMPT);
            out.writeString(r.attemptId());
            StoreSerialization.writeRefs(out, r.refs());
        } else if (request instanceof PartitionRequest.RecallAttempt r) {
            out.writeByte(RECALL_ATTEMPT);
            out.writeString(r.attemptId());
        } else if (request instanceof PartitionRequest.Redeliver r) {
            out.writeByte(REDELIVER);
            out.writeString(r.messageId());
            out.writeLong(r.token());
        } else {
            throw new IllegalArgumentException("cannot forward request " + request);
        }
    }

    @Override
    public void readData(ObjectDataInput in) throws IOException {
        byte format = in.readByte();
        if (format < 1) {
            throw new IOException("unknown forwarded request format " + format);
        }
        queueName = in.readString();
        partition = in.readInt();
        byte type = in.readByte();
        request = switch (type) {
            case SEND -> readSend(in);
            case SEND_BATCH ->
                new PartitionRequest.SendBatch(StoreSerialization.readList(in, ForwardedRequest::readSend));
            case RECEIVE -> new PartitionRequest.Receive(in.readInt(), in.readLong(), in.readInt(), in.readLong());
            case DELETE -> readDelete(in);
            case DELETE_BATCH ->
                new PartitionRequest.DeleteBatch(StoreSerialization.readList(in, ForwardedRequest::readDelete));
            case CHANGE_VISIBILITY ->
                new PartitionRequest.ChangeVisibility(in.readString(), in.readLong(), in.readLong(), in.readString());
            case PURGE -> new PartitionRequest.Purge();
            case RESERVE_DEDUP -> new PartitionRequest.ReserveDedup(in.readString(), in.readString());
            case CONFIRM_DEDUP -> new PartitionRequest.ConfirmDedup(in.readString(), in.readString(), in.readString());
            case REMEMBER_ATTEMPT ->
                new PartitionRequest.RememberAttempt(in.readString(), StoreSerialization.readRefs(in));
            case RECALL_ATTEMPT -> new PartitionRequest.RecallAttempt(in.readString());
            case REDELIVER -> new PartitionRequest.Redeliver(in.readString(), in.readLong());
            default -> throw new IOException("unknown partition request type " + type);
        };
    }

    private static void writeSend(ObjectDataOutput out, PartitionRequest.Send s) throws IOException {
        StoreSerialization.writeMessage(out, s.message().snapshot());
        out.writeLong(s.delayMillis());
        out.writeString(s.dedupKey());
    }

    private static PartitionRequest.Send readSend(ObjectDataInput in) throws IOException {
        return new PartitionRequest.Send(
                MessageRecord.restore(StoreSerialization.readMessage(in)), in.readLong(), in.readString());
    }

    private static void writeDelete(ObjectDataOutput out, PartitionRequest.Delete d) throws IOException {
        out.writeString(d.messageId());
        out.writeLong(d.token());
    }

    private static PartitionRequest.Delete readDelete(ObjectDataInput in) throws IOException {
        return new PartitionRequest.Delete(in.readString(), in.readLong());
    }

    @Override
    public String toString() {
        return "ForwardedRequest{" + queueName + "#" + partition + " " + request + "}";
    }
}
