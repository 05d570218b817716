package io.sluice.queue;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What a queue is, apart from its messages: name, type, partition count, timestamps, the
 * attributes set on it and its tags. Immutable: a change makes a new value, so a replicated
 * registry can ship it whole and readers on any thread see a consistent queue.
 *
 * @param attributes settable attributes as given (validated), without defaults filled in
 * @param purgedAt   when the last PurgeQueue started, 0 if never: SQS allows one per 60 s
 */
public record QueueMeta(
        String name,
        boolean fifo,
        int partitions,
        long createdMillis,
        long lastModifiedMillis,
        Map<String, String> attributes,
        Map<String, String> tags,
        long purgedAt) {

    public QueueMeta {
        attributes = Map.copyOf(attributes);
        tags = Map.copyOf(tags);
    }

    /** An attribute's effective value: the one set, or SQS's default. */
    public String attribute(String name) {
        String v = attributes.get(name);
        return v != null ? v : QueueAttributes.defaultValue(name, fifo);
    }

    public int visibilityTimeoutSeconds() { return Integer.parseInt(attribute(QueueAttributes.VISIBILITY_TIMEOUT)); }
    public int delaySeconds() { return Integer.parseInt(attribute(QueueAttributes.DELAY_SECONDS)); }
    public int maximumMessageSize() { return Integer.parseInt(attribute(QueueAttributes.MAXIMUM_MESSAGE_SIZE)); }
    public long retentionMillis() { return Long.parseLong(attribute(QueueAttributes.MESSAGE_RETENTION_PERIOD)) * 1000L; }
    public int receiveWaitTimeSeconds() { return Integer.parseInt(attribute(QueueAttributes.RECEIVE_MESSAGE_WAIT_TIME_SECONDS)); }

    public boolean contentBasedDeduplication() { return "true".equals(attribute(QueueAttributes.CONTENT_BASED_DEDUPLICATION)); }

    /** High-throughput FIFO: deduplication per message group instead of queue-wide. */
    public boolean deduplicatesPerGroup() { return "messageGroup".equals(attribute(QueueAttributes.DEDUPLICATION_SCOPE)); }

    /**
     * The redrive policy, or null when none is set. The stored form is the canonical JSON the
     * broker wrote itself ({@link RedrivePolicy#toJson()}), so a pattern reads it back.
     */
    public RedrivePolicy redrivePolicy() {
        String v = attributes.get(QueueAttributes.REDRIVE_POLICY);
        return v == null || v.isEmpty() ? null : RedrivePolicy.fromCanonicalJson(v);
    }

    public QueueMeta withAttributes(Map<String, String> changes, long now) {
        Map<String, String> merged = new LinkedHashMap<>(attributes);
        changes.forEach((k, v) -> {
            if (v == null) {
                merged.remove(k);
            } else {
                merged.put(k, v);
            }
        });
        return new QueueMeta(name, fifo, partitions, createdMillis, now, merged, tags, purgedAt);
    }

    public QueueMeta withTags(Map<String, String> newTags) {
        return new QueueMeta(name, fifo, partitions, createdMillis, lastModifiedMillis, attributes, newTags, purgedAt);
    }

    public QueueMeta withPurgedAt(long when) {
        return new QueueMeta(name, fifo, partitions, createdMillis, lastModifiedMillis, attributes, tags, when);
    }
}
