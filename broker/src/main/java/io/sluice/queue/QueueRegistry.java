package io.sluice.queue;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.UnaryOperator;

/**
 * The queues that exist. Reads are served from what this node knows (a local cache in a
 * cluster) and return at once; writes may need the cluster, so they complete later, and they
 * resolve races between callers (on any node) to one outcome. Failures are {@link SqsException}s.
 */
public interface QueueRegistry {
    /** SQS reserves a deleted queue's name for 60 seconds. */
    long DELETED_NAME_COOLDOWN_MILLIS = 60_000;

    /** How long {@link #awaitKnown} waits at most for the news of a queue's creation. */
    long NEWS_WAIT_MILLIS = 2_000;

    /** The queue, or null. */
    QueueMeta find(String name);

    /**
     * For a name {@link #find} does not know: completes with true once it does (a queue just created
     * through another node, whose news has not reached this one yet), with false when there is no
     * such queue to wait for, or had none within {@link #NEWS_WAIT_MILLIS}. Completes at once where
     * every node's view is its own.
     */
    default CompletionStage<Boolean> awaitKnown(String name) {
        return CompletableFuture.completedFuture(find(name) != null);
    }

    /**
     * Creates the queue, or returns the existing one when its attributes agree.
     *
     * @throws SqsException QueueAlreadyExists when they differ, QueueDeletedRecently within the cooldown
     */
    CompletionStage<QueueMeta> create(QueueMeta proposed);

    /** Applies a change to the queue; QueueDoesNotExist when it is gone. The change may run more than once. */
    CompletionStage<QueueMeta> update(String name, UnaryOperator<QueueMeta> change);

    /** Deletes the queue; QueueDoesNotExist when it is gone. */
    CompletionStage<Void> delete(String name);

    /** Queues whose names start with the prefix, in name order. */
    List<QueueMeta> list(String prefix);

    /**
     * Whether the queue of this name was deleted less than {@code millis} ago; for at most {@link
     * #DELETED_NAME_COOLDOWN_MILLIS}, while no queue of that name can be created.
     */
    CompletionStage<Boolean> deletedWithin(String name, long millis);

    /**
     * Whether a name last deleted at {@code deletedAtMillis} (null: not deleted, or long enough ago
     * to be forgotten) was deleted less than {@code millis} before {@code nowMillis}; never longer
     * than {@link #DELETED_NAME_COOLDOWN_MILLIS}, past which the deletion is forgotten.
     */
    static boolean deletedWithin(Long deletedAtMillis, long nowMillis, long millis) {
        return deletedAtMillis != null && nowMillis - deletedAtMillis < Math.min(millis, DELETED_NAME_COOLDOWN_MILLIS);
    }

    /**
     * Refuses a CreateQueue whose name was last deleted at {@code deletedAtMillis} (null: not
     * deleted, or long enough ago to be forgotten) when that is less than {@link
     * #DELETED_NAME_COOLDOWN_MILLIS} before {@code nowMillis}.
     *
     * @throws SqsException QueueDeletedRecently
     */
    static void refuseIfDeletedRecently(Long deletedAtMillis, long nowMillis) {
        if (deletedWithin(deletedAtMillis, nowMillis, DELETED_NAME_COOLDOWN_MILLIS)) {
            throw new SqsException(
                    ErrorCode.QUEUE_DELETED_RECENTLY,
                    "You must wait 60 seconds after deleting a queue before you can create another with the same name.");
        }
    }

    /**
     * What CreateQueue answers when a queue of the proposed name exists: that queue when their
     * attributes agree.
     *
     * @throws SqsException QueueAlreadyExists, naming the first attribute that differs
     */
    static QueueMeta existingIfSame(QueueMeta existing, QueueMeta proposed) {
        String differing = QueueAttributes.firstDifference(existing, proposed);
        if (differing != null) {
            throw new SqsException(
                    ErrorCode.QUEUE_ALREADY_EXISTS,
                    "A queue already exists with the same name and a different value for attribute " + differing);
        }
        return existing;
    }

    /** QueueDoesNotExist, as the cluster's registry itself answers it. */
    static SqsException doesNotExist() {
        return new SqsException(ErrorCode.QUEUE_DOES_NOT_EXIST, "The specified queue does not exist.");
    }

    /** QueueDoesNotExist because {@link #find} did not know {@code name}: news may still be on its way. */
    static UnknownQueueException notKnown(String name) {
        return new UnknownQueueException(name, doesNotExist());
    }
}
