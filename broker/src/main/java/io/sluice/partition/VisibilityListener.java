package io.sluice.partition;

/**
 * Told when a partition has newly visible messages (a send, a delay's end, a visibility
 * expiry), so that long polls waiting on the queue can claim them. Called on the partition's
 * loop: implementations must hand off, not work there.
 */
@FunctionalInterface
public interface VisibilityListener {
    /** In place of a partition index: any of the queue's partitions may have some; look at all. */
    int ANY_PARTITION = -1;

    void onVisible(String queueName, int partition);
}
