package io.sluice.partition;

/**
 * Told when a partition has newly visible messages (a send, a delay's end, a visibility
 * expiry), so that long polls waiting on the queue can claim them. Called on the partition's
 * loop: implementations must hand off, not work there.
 */
@FunctionalInterface
public interface VisibilityListener {
    void onVisible(String queueName, int partition);
}
