package io.sluice.queue;

/**
 * A refusal because this node's copy of the registry lacks a queue a request names. In a cluster
 * that copy follows the others' news, so the queue may have been created through another node a
 * moment ago: whoever catches this may wait for {@link QueueRegistry#awaitKnown} on
 * {@link #queueName()} and try once more before the client gets the answer.
 */
public final class UnknownQueueException extends SqsException {
    private final String queueName;

    /** The refusal {@code answer} gives, caused by not knowing the queue {@code queueName} (its registry name). */
    public UnknownQueueException(String queueName, SqsException answer) {
        super(answer.code(), answer.getMessage());
        this.queueName = queueName;
    }

    public String queueName() {
        return queueName;
    }
}
