package io.sluice.cluster;

import com.hazelcast.nio.serialization.compact.CompactReader;
import com.hazelcast.nio.serialization.compact.CompactSerializer;
import com.hazelcast.nio.serialization.compact.CompactWriter;
import io.sluice.queue.QueueMeta;
import io.sluice.queue.RedrivePolicy;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * Queue metadata in the queue registry's map, in Hazelcast's Compact format: named fields under
 * a schema, so a later release can add fields and still read these. Attributes and tags go as
 * two string arrays each, sorted by name, so equal queues serialize to equal bytes whichever JVM
 * wrote them (a {@code Map.copyOf} iterates in an order of its own per JVM).
 */
final class QueueMetaSerializer implements CompactSerializer<QueueMeta> {
    @Override
    public QueueMeta read(CompactReader r) {
        String deadLetterTarget = r.readString("deadLetterTargetArn");
        return new QueueMeta(
                r.readString("name"),
                r.readBoolean("fifo"),
                r.readInt32("partitions"),
                r.readInt64("createdMillis"),
                r.readInt64("lastModifiedMillis"),
                readMap(r, "attribute"),
                readMap(r, "tag"),
                r.readInt64("purgedAt"),
                deadLetterTarget == null ? null : new RedrivePolicy(deadLetterTarget, r.readInt32("maxReceiveCount")));
    }

    @Override
    public void write(CompactWriter w, QueueMeta q) {
        w.writeString("name", q.name());
        w.writeBoolean("fifo", q.fifo());
        w.writeInt32("partitions", q.partitions());
        w.writeInt64("createdMillis", q.createdMillis());
        w.writeInt64("lastModifiedMillis", q.lastModifiedMillis());
        writeMap(w, "attribute", q.attributes());
        writeMap(w, "tag", q.tags());
        w.writeInt64("purgedAt", q.purgedAt());
        RedrivePolicy redrive = q.redrivePolicy();
        w.writeString("deadLetterTargetArn", redrive == null ? null : redrive.deadLetterTargetArn());
        w.writeInt32("maxReceiveCount", redrive == null ? 0 : redrive.maxReceiveCount());
    }

    private static void writeMap(CompactWriter w, String field, Map<String, String> map) {
        TreeMap<String, String> sorted = new TreeMap<>(map);
        w.writeArrayOfString(field + "Names", sorted.keySet().toArray(new String[0]));
        w.writeArrayOfString(field + "Values", sorted.values().toArray(new String[0]));
    }

    private static Map<String, String> readMap(CompactReader r, String field) {
        String[] names = r.readArrayOfString(field + "Names");
        String[] values = r.readArrayOfString(field + "Values");
        if (names.length != values.length) {
            throw new IllegalArgumentException(field + " names and values differ in number");
        }
        Map<String, String> map = new LinkedHashMap<>();
        for (int i = 0; i < names.length; i++) {
            map.put(names[i], values[i]);
        }
        return map;
    }

    @Override
    public String getTypeName() {
        return "sluice.QueueMeta";
    }

    @Override
    public Class<QueueMeta> getCompactClass() {
        return QueueMeta.class;
    }
}
