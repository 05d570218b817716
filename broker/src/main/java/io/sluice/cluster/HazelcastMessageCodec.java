package io.sluice.cluster;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.internal.serialization.SerializationService;
import com.hazelcast.internal.serialization.impl.HeapData;
import com.hazelcast.nio.serialization.IdentifiedDataSerializable;
import com.hazelcast.spi.impl.SerializationServiceSupport;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.eventbus.EventBus;
import io.vertx.core.eventbus.MessageCodec;

/**
 * The event-bus codec of what nodes send each other: a value crosses in the member's own
 * Hazelcast serialization (its {@link WireSerialization} factory id, class id, then its fields),
 * after a length. Within a node a value is handed over as it is. The event bus decodes a body
 * when the consumer first reads it, so a body that cannot be read surfaces in the consumer as
 * an {@link IllegalArgumentException}, which it can answer.
 */
public final class HazelcastMessageCodec<T extends IdentifiedDataSerializable> implements MessageCodec<T, T> {
    private final SerializationService serialization;
    private final Class<T> type;

    HazelcastMessageCodec(SerializationService serialization, Class<T> type) {
        this.serialization = serialization;
        this.type = type;
    }

    /** Registers the codecs of the forwarded requests and replies, single and bundled, as their types' defaults. */
    public static void register(EventBus bus, HazelcastInstance hz) {
        bus.registerDefaultCodec(ForwardedRequest.class, of(hz, ForwardedRequest.class));
        bus.registerDefaultCodec(ForwardedReply.class, of(hz, ForwardedReply.class));
        bus.registerDefaultCodec(ForwardedBundle.class, of(hz, ForwardedBundle.class));
        bus.registerDefaultCodec(ForwardedReplies.class, of(hz, ForwardedReplies.class));
    }

    static <T extends IdentifiedDataSerializable> HazelcastMessageCodec<T> of(HazelcastInstance hz, Class<T> type) {
        return new HazelcastMessageCodec<>(((SerializationServiceSupport) hz).getSerializationService(), type);
    }

    @Override
    public void encodeToWire(Buffer buffer, T value) {
        byte[] bytes = serialization.toData(value).toByteArray();
        buffer.appendInt(bytes.length).appendBytes(bytes);
    }

    /** Anything but a whole value of this codec's type, truncated or garbage, is an IllegalArgumentException. */
    @Override
    public T decodeFromWire(int pos, Buffer buffer) {
        Object value;
        try {
            int length = buffer.getInt(pos);
            // Checked before anything is allocated for it.
            if (length < 0 || length > buffer.length() - pos - 4) {
                throw new IllegalArgumentException("a body of " + length + " bytes in " + buffer.length());
            }
            value = serialization.toObject(new HeapData(buffer.getBytes(pos + 4, pos + 4 + length)));
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("undecodable " + type.getSimpleName(), e);
        }
        if (!type.isInstance(value)) {
            throw new IllegalArgumentException("expected a " + type.getSimpleName() + ", got " + value);
        }
        return type.cast(value);
    }

    @Override
    public T transform(T value) {
        return value;
    }

    @Override
    public String name() {
        return "sluice." + type.getSimpleName();
    }

    @Override
    public byte systemCodecID() {
        return -1;
    }
}
