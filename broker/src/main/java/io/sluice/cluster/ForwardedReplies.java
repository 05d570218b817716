package io.sluice.cluster;

import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import com.hazelcast.nio.serialization.IdentifiedDataSerializable;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * The answers to a {@link ForwardedBundle}, one {@link ForwardedReply} per request in the
 * bundle's order. After the format byte come a count and that many replies, each in its own layout.
 */
public final class ForwardedReplies implements IdentifiedDataSerializable {
    private static final byte FORMAT = 1;

    private List<ForwardedReply> replies;

    /** For Hazelcast's deserialization. */
    ForwardedReplies() {}

    public ForwardedReplies(List<ForwardedReply> replies) {
        this.replies = List.copyOf(replies);
    }

    public List<ForwardedReply> replies() {
        return replies;
    }

    @Override
    public int getFactoryId() {
        return WireSerialization.FACTORY_ID;
    }

    @Override
    public int getClassId() {
        return WireSerialization.REPLIES;
    }

    @Override
    public void writeData(ObjectDataOutput out) throws IOException {
        out.writeByte(FORMAT);
        out.writeInt(replies.size());
        for (ForwardedReply r : replies) {
            r.writeData(out);
        }
    }

    @Override
    public void readData(ObjectDataInput in) throws IOException {
        byte format = in.readByte();
        if (format < 1) {
            throw new IOException("unknown forwarded replies format " + format);
        }
        int n = in.readInt();
        if (n < 0 || n > ForwardedBundle.MAX_REQUESTS) {
            throw new IOException("replies to " + n + " requests");
        }
        List<ForwardedReply> read = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            ForwardedReply r = new ForwardedReply();
            r.readData(in);
            read.add(r);
        }
        replies = List.copyOf(read);
    }

    @Override
    public String toString() {
        return "ForwardedReplies" + replies;
    }
}
