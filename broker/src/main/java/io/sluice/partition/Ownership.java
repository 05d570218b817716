package io.sluice.partition;

/**
 * Whether this node owns a queue partition now. Checked before every request a partition runs,
 * so a partition that moved away stops serving at once instead of diverging from its new owner.
 */
@FunctionalInterface
public interface Ownership {
    Ownership ALWAYS = (queue, partition) -> true;

    boolean ownsLocally(String queueName, int partition);
}
