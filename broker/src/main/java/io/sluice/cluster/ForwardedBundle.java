package io.sluice.cluster;

import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import com.hazelcast.nio.serialization.IdentifiedDataSerializable;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Partition requests one node forwards to another in one event-bus message: those a loop of the
 * sender gathered for that owner in one turn ({@link ForwardOutbox}). Answered by one
 * {@link ForwardedReplies}, in the same order. After the format byte come a count and that many
 * {@link ForwardedRequest}s, each in its own layout.
 */
public final class ForwardedBundle implements IdentifiedDataSerializable {
    private static final byte FORMAT = 1;
    /** More than a sender ever puts in one ({@link ForwardOutbox#MAX_PARTS}); a larger count is not read. */
    static final int MAX_REQUESTS = 1024;

    private List<ForwardedRequest> requests;

    /** For Hazelcast's deserialization. */
    ForwardedBundle() {}

    public ForwardedBundle(List<ForwardedRequest> requests) {
        this.requests = List.copyOf(requests);
    }

    public List<ForwardedRequest> requests() {
        return requests;
    }

    @Override
    public int getFactoryId() {
        return WireSerialization.FACTORY_ID;
    }

    @Override
    public int getClassId() {
        return WireSerialization.BUNDLE;
    }

    @Override
    public void writeData(ObjectDataOutput out) throws IOException {
        out.writeByte(FORMAT);
        out.writeInt(requests.size());
        for (ForwardedRequest r : requests) {
            r.writeData(out);
        }
    }

    @Override
    public void readData(ObjectDataInput in) throws IOException {
        byte format = in.readByte();
        if (format < 1) {
            throw new IOException("unknown forwarded bundle format " + format);
        }
        int n = in.readInt();
        if (n < 0 || n > MAX_REQUESTS) {
            throw new IOException("a bundle of " + n + " requests");
        }
        List<ForwardedRequest> read = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            ForwardedRequest r = new ForwardedRequest();
            r.readData(in);
            read.add(r);
        }
        requests = List.copyOf(read);
    }

    @Override
    public String toString() {
        return "ForwardedBundle" + requests;
    }
}
