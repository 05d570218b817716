package io.sluice.partition;

import io.sluice.queue.Partition;
import io.sluice.queue.PartitionRequest;
import io.vertx.core.Future;
import io.vertx.core.Promise;

/**
 * One request of several run together on a partition ({@link PartitionDirectory#executeAll}) and
 * the answer it gets: its own result or error once the commit carrying the group's changes is
 * done, or the commit's failure.
 */
public final class PartitionCall<R> {
    private final PartitionRequest<R> request;
    private final Promise<R> answer = Promise.promise();
    private R result;
    private Throwable failure;

    public PartitionCall(PartitionRequest<R> request) {
        this.request = request;
    }

    /** Completes where the group was asked to answer (the caller's context). */
    public Future<R> future() {
        return answer.future();
    }

    /** Applies the request; an error it raises is its own answer. Runs on the partition's loop. */
    void run(Partition state) {
        try {
            result = request.applyTo(state);
        } catch (RuntimeException e) {
            failure = e;
        }
    }

    /**
     * Answers: the request's own error if it raised one, else {@code groupFailure} (the commit
     * failed, or the group never ran) if any, else its result.
     */
    void complete(Throwable groupFailure) {
        if (failure != null) {
            answer.fail(failure);
        } else if (groupFailure != null) {
            answer.fail(groupFailure);
        } else {
            answer.complete(result);
        }
    }
}
