package io.sluice.queue;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * What a queue is, apart from its messages: name, type, partition count, timestamps, the
 * attributes set on it and its tags. Immutable: a change makes a new value, so a replicated
 * registry can ship it whole and readers on any thread see a consistent queue. The settings
 * requests read on every call (timeouts, sizes, deduplication) are parsed once, here.
 */
public final class QueueMeta {
    private final String name;
    private final boolean fifo;
    private final int partitions;
    private final long createdMillis;
    private final long lastModifiedMillis;
    private final Map<String, String> attributes;
    private final Map<String, String> tags;
    private final long purgedAt;
    private final RedrivePolicy redrivePolicy;

    private final int visibilityTimeoutSeconds;
    private final int delaySeconds;
    private final int maximumMessageSize;
    private final long retentionMillis;
    private final int receiveWaitTimeSeconds;
    private final boolean contentBasedDeduplication;
    private final boolean deduplicatesPerGroup;

    /**
     * @param attributes    settable attributes as given (validated), without defaults filled in,
     *                      and without the RedrivePolicy, which is {@code redrivePolicy}
     * @param purgedAt      when the last PurgeQueue started, 0 if never: SQS allows one per 60 s
     * @param redrivePolicy the queue's dead-letter policy, or null
     */
    public QueueMeta(
            String name,
            boolean fifo,
            int partitions,
            long createdMillis,
            long lastModifiedMillis,
            Map<String, String> attributes,
            Map<String, String> tags,
            long purgedAt,
            RedrivePolicy redrivePolicy) {
        if (attributes.containsKey(QueueAttributes.REDRIVE_POLICY)) {
            throw new IllegalArgumentException("the redrive policy is given parsed, not as an attribute");
        }
        this.name = name;
        this.fifo = fifo;
        this.partitions = partitions;
        this.createdMillis = createdMillis;
        this.lastModifiedMillis = lastModifiedMillis;
        this.attributes = Map.copyOf(attributes);
        this.tags = Map.copyOf(tags);
        this.purgedAt = purgedAt;
        this.redrivePolicy = redrivePolicy;
        this.visibilityTimeoutSeconds = Integer.parseInt(attribute(QueueAttributes.VISIBILITY_TIMEOUT));
        this.delaySeconds = Integer.parseInt(attribute(QueueAttributes.DELAY_SECONDS));
        this.maximumMessageSize = Integer.parseInt(attribute(QueueAttributes.MAXIMUM_MESSAGE_SIZE));
        this.retentionMillis = Long.parseLong(attribute(QueueAttributes.MESSAGE_RETENTION_PERIOD)) * 1000L;
        this.receiveWaitTimeSeconds = Integer.parseInt(attribute(QueueAttributes.RECEIVE_MESSAGE_WAIT_TIME_SECONDS));
        this.contentBasedDeduplication = "true".equals(attribute(QueueAttributes.CONTENT_BASED_DEDUPLICATION));
        this.deduplicatesPerGroup = "messageGroup".equals(attribute(QueueAttributes.DEDUPLICATION_SCOPE));
    }

    /**
     * What is known of a deleted queue whose metadata is gone, for erasing what its partitions
     * stored: its name, the FIFO flag the name implies, and how many partitions to erase (0: only
     * those running here).
     */
    public static QueueMeta deleted(String name, int partitions) {
        return new QueueMeta(name, QueueNames.isFifoName(name), partitions, 0, 0, Map.of(), Map.of(), 0);
    }

    /** A queue without a redrive policy. */
    public QueueMeta(
            String name,
            boolean fifo,
            int partitions,
            long createdMillis,
            long lastModifiedMillis,
            Map<String, String> attributes,
            Map<String, String> tags,
            long purgedAt) {
        this(name, fifo, partitions, createdMillis, lastModifiedMillis, attributes, tags, purgedAt, null);
    }

    public String name() {
        return name;
    }

    public boolean fifo() {
        return fifo;
    }

    public int partitions() {
        return partitions;
    }

    public long createdMillis() {
        return createdMillis;
    }

    public long lastModifiedMillis() {
        return lastModifiedMillis;
    }
    /** The attributes set on the queue, as set (the RedrivePolicy apart: see {@link #redrivePolicy()}). */
    public Map<String, String> attributes() {
        return attributes;
    }

    public Map<String, String> tags() {
        return tags;
    }

    public long purgedAt() {
        return purgedAt;
    }

    /** An attribute's effective value as SQS reports it: the one set, or SQS's default. */
    public String attribute(String name) {
        if (name.equals(QueueAttributes.REDRIVE_POLICY)) {
            return redrivePolicy == null ? null : redrivePolicy.toJson();
        }
        String v = attributes.get(name);
        return v != null ? v : QueueAttributes.defaultValue(name, fifo);
    }

    public int visibilityTimeoutSeconds() {
        return visibilityTimeoutSeconds;
    }

    public int delaySeconds() {
        return delaySeconds;
    }

    public int maximumMessageSize() {
        return maximumMessageSize;
    }

    public long retentionMillis() {
        return retentionMillis;
    }

    public int receiveWaitTimeSeconds() {
        return receiveWaitTimeSeconds;
    }

    public boolean contentBasedDeduplication() {
        return contentBasedDeduplication;
    }

    /** High-throughput FIFO: deduplication per message group instead of queue-wide. */
    public boolean deduplicatesPerGroup() {
        return deduplicatesPerGroup;
    }

    /** The redrive policy, or null when none is set. */
    public RedrivePolicy redrivePolicy() {
        return redrivePolicy;
    }

    /** With these attributes set (a null value removes one); the RedrivePolicy is {@link #withRedrivePolicy}'s. */
    public QueueMeta withAttributes(Map<String, String> changes, long now) {
        Map<String, String> merged = new LinkedHashMap<>(attributes);
        changes.forEach((k, v) -> {
            if (v == null) {
                merged.remove(k);
            } else {
                merged.put(k, v);
            }
        });
        return new QueueMeta(name, fifo, partitions, createdMillis, now, merged, tags, purgedAt, redrivePolicy);
    }

    /** With this redrive policy, or none for null. */
    public QueueMeta withRedrivePolicy(RedrivePolicy policy, long now) {
        return new QueueMeta(name, fifo, partitions, createdMillis, now, attributes, tags, purgedAt, policy);
    }

    public QueueMeta withTags(Map<String, String> newTags) {
        return new QueueMeta(
                name,
                fifo,
                partitions,
                createdMillis,
                lastModifiedMillis,
                attributes,
                newTags,
                purgedAt,
                redrivePolicy);
    }

    public QueueMeta withPurgedAt(long when) {
        return new QueueMeta(
                name, fifo, partitions, createdMillis, lastModifiedMillis, attributes, tags, when, redrivePolicy);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof QueueMeta q
                && name.equals(q.name)
                && fifo == q.fifo
                && partitions == q.partitions
                && createdMillis == q.createdMillis
                && lastModifiedMillis == q.lastModifiedMillis
                && attributes.equals(q.attributes)
                && tags.equals(q.tags)
                && purgedAt == q.purgedAt
                && Objects.equals(redrivePolicy, q.redrivePolicy);
    }

    @Override
    public int hashCode() {
        return Objects.hash(
                name, fifo, partitions, createdMillis, lastModifiedMillis, attributes, tags, purgedAt, redrivePolicy);
    }

    @Override
    public String toString() {
        return "QueueMeta[name=" + name + ", fifo=" + fifo + ", partitions=" + partitions
                + ", createdMillis=" + createdMillis + ", lastModifiedMillis=" + lastModifiedMillis
                + ", attributes=" + attributes + ", tags=" + tags + ", purgedAt=" + purgedAt
                + ", redrivePolicy=" + redrivePolicy + "]";
    }
}
