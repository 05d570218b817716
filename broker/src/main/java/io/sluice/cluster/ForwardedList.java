package io.sluice.cluster;

import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import com.hazelcast.nio.serialization.IdentifiedDataSerializable;
import io.sluice.cluster.store.StoreSerialization;
import java.io.IOException;
import java.util.List;
import java.util.function.Supplier;

/**
 * Several forwarded values of one type in one event-bus message ({@link ForwardedBundle},
 * {@link ForwardedReplies}): a format byte, then the list ({@link StoreSerialization#writeList}) of
 * the values, each in its own layout.
 */
abstract sealed class ForwardedList<E extends IdentifiedDataSerializable> implements IdentifiedDataSerializable
        permits ForwardedBundle, ForwardedReplies {
    private static final byte FORMAT = 1;

    private final Supplier<E> blank;
    private List<E> items;

    /** @param blank a value to read an element into, as Hazelcast's factory makes one */
    ForwardedList(Supplier<E> blank, List<E> items) {
        this.blank = blank;
        this.items = items == null ? null : List.copyOf(items);
    }

    final List<E> items() {
        return items;
    }

    @Override
    public final int getFactoryId() {
        return WireSerialization.FACTORY_ID;
    }

    @Override
    public final void writeData(ObjectDataOutput out) throws IOException {
        out.writeByte(FORMAT);
        StoreSerialization.writeList(out, items, (o, each) -> each.writeData(o));
    }

    @Override
    public final void readData(ObjectDataInput in) throws IOException {
        byte format = in.readByte();
        if (format < 1) {
            throw new IOException(
                    "unknown format " + format + " of " + getClass().getSimpleName());
        }
        items = StoreSerialization.readList(in, i -> {
            E each = blank.get();
            each.readData(i);
            return each;
        });
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + items;
    }
}
