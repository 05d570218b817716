package io.sluice.cluster;

import io.sluice.queue.PartitionKey;

/**
 * Keys of the message map. Everything of one queue partition shares the partition key after
 * the '@' (its {@link PartitionKey} text, "queue#index"), so Hazelcast keeps it in one of its
 * partitions, owned by one member: the queue partition's owner. The kind prefix tells records
 * apart: m (message), d (deduplication record), a (receive attempt), c (the partition's commit
 * marker, which every commit writes last; it holds nothing a partition is rebuilt from).
 */
final class MessageKeys {
    static final char MESSAGE = 'm';
    static final char DEDUP = 'd';
    static final char ATTEMPT = 'a';
    static final char COMMIT_MARKER = 'c';

    private MessageKeys() {}

    static String key(char kind, String id, PartitionKey partition) {
        return kind + ":" + id + "@" + partition;
    }

    static char kindOf(String key) {
        return key.charAt(0);
    }

    /** The id between "k:" and the last '@'. */
    static String idOf(String key) {
        return key.substring(2, key.lastIndexOf('@'));
    }

    static PartitionKey partitionOf(String key) {
        return PartitionKey.parse(key.substring(key.lastIndexOf('@') + 1));
    }
}
