package io.sluice.cluster;

import com.hazelcast.config.SerializationConfig;
import com.hazelcast.nio.serialization.DataSerializableFactory;
import com.hazelcast.nio.serialization.IdentifiedDataSerializable;

/**
 * The Hazelcast {@link IdentifiedDataSerializable} types one node sends another over the event
 * bus: a {@link ForwardedRequest} to a partition's owner and the {@link ForwardedReply} it
 * answers with, or several of them in a {@link ForwardedBundle} answered by
 * {@link ForwardedReplies}. Each names itself by this factory's id and a class id, and its layout
 * starts with a format version, so a node of a later release can read what this one writes and
 * add fields after it (a rolling upgrade). Queue metadata travels in Hazelcast's Compact format
 * ({@link QueueMetaSerializer}); partition state in the partition store's own factory.
 */
public final class WireSerialization implements DataSerializableFactory {
    /** Unique among this cluster's factories (the partition store's is 0x51CE). */
    public static final int FACTORY_ID = 0x51CF;

    static final int REQUEST = 1;
    static final int REPLY = 2;
    static final int BUNDLE = 3;
    static final int REPLIES = 4;

    /** Registers this factory and the queue metadata's Compact serializer on a member's configuration. */
    public static void register(SerializationConfig config) {
        config.addDataSerializableFactory(FACTORY_ID, new WireSerialization());
        config.getCompactSerializationConfig().addSerializer(new QueueMetaSerializer());
    }

    @Override
    public IdentifiedDataSerializable create(int classId) {
        return switch (classId) {
            case REQUEST -> new ForwardedRequest();
            case REPLY -> new ForwardedReply();
            case BUNDLE -> new ForwardedBundle();
            case REPLIES -> new ForwardedReplies();
            default -> null;
        };
    }
}
