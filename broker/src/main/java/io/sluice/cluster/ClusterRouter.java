package io.sluice.cluster;

import com.hazelcast.cluster.Member;
import io.sluice.partition.PartitionDirectory;
import io.sluice.partition.PartitionMoved;
import io.sluice.partition.PartitionRouter;
import io.sluice.partition.PartitionStats;
import io.sluice.partition.SendAffinity;
import io.sluice.queue.ErrorCode;
import io.sluice.queue.PartitionRequest;
import io.sluice.queue.SqsException;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.Message;
import io.vertx.core.eventbus.ReplyException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;

/**
 * Sends a partition request to the partition's owner: straight to the local loop when the
 * owner is this node, otherwise as an event-bus request to the owner's node address: on an event
 * loop, with the other requests that loop forwards to that owner in the same turn
 * ({@link ForwardOutbox}), elsewhere alone ({@link ForwardedRequest}). While ownership moves
 * (the owner answers "moved", has no handler any more, or the table names no owner) the request
 * is re-resolved and retried a bounded number of times; then the client gets ServiceUnavailable
 * (HTTP 503), which SDKs retry.
 */
public final class ClusterRouter implements PartitionRouter {
    /** Requests sent to another node because it owns the partition (retries included). */
    private final LongAdder forwarded = new LongAdder();
    /** Event-bus messages those requests travelled in (a bundle of several counts one). */
    private final LongAdder forwardMessages = new LongAdder();
    /** Where a context keeps its {@link ForwardOutbox}. */
    private final Object outboxKey = new Object();

    private final ForwardOutbox.Transport transport = new ForwardOutbox.Transport() {
        @Override
        public Future<ForwardedReply> one(String nodeId, ForwardedRequest request) {
            forwardMessages.increment();
            return vertx.eventBus()
                    .<ForwardedReply>request(address(nodeId), request, options)
                    .map(Message::body);
        }

        @Override
        public Future<Object> bundle(String nodeId, ForwardedBundle bundle) {
            forwardMessages.increment();
            return vertx.eventBus().request(address(nodeId), bundle, options).map(Message::body);
        }
    };

    static final String ADDRESS_PREFIX = "sluice.partitions.";
    static final int MAX_ATTEMPTS = 40;
    /** However many attempts are left, a request stops being retried after this long. */
    static final long RETRY_BUDGET_MILLIS = 8_000;

    private static final long RETRY_MILLIS = 100;
    /** A partition request takes milliseconds; a node that has not answered in this long is likely gone or frozen. */
    private static final long REQUEST_TIMEOUT_MILLIS = 2_000;

    private final Vertx vertx;
    private final PartitionDirectory local;
    private final HazelcastOwnership ownership;
    private final StatsBoard stats;
    private final DeliveryOptions options = new DeliveryOptions().setSendTimeout(REQUEST_TIMEOUT_MILLIS);
    private final SendAffinity sendAffinity;

    /** @param sendBlock how many sends {@link SendAffinity} keeps on one partition */
    public ClusterRouter(
            Vertx vertx, PartitionDirectory local, HazelcastOwnership ownership, StatsBoard stats, int sendBlock) {
        this.vertx = vertx;
        this.local = local;
        this.ownership = ownership;
        this.stats = stats;
        this.sendAffinity = new SendAffinity(ownership::ownsLocally, sendBlock);
    }

    static String address(String nodeId) {
        return ADDRESS_PREFIX + nodeId;
    }

    @Override
    public <R> Future<R> execute(String queueName, int partition, PartitionRequest<R> request) {
        Promise<R> answer = Promise.promise();
        attempt(queueName, partition, request, 1, System.currentTimeMillis() + RETRY_BUDGET_MILLIS, answer);
        return answer.future();
    }

    /**
     * In a partition {@link SendAffinity} picks: one this node owns when it owns any, kept for the
     * next sends of the calling thread while its previous ones are in flight, so they commit together.
     */
    @Override
    public <R> Future<R> executeSend(String queueName, int partitions, PartitionRequest<R> request) {
        return sendAffinity.send(queueName, partitions, partition -> execute(queueName, partition, request));
    }

    /** How many requests this node has forwarded to partition owners elsewhere. */
    public long forwardedRequests() {
        return forwarded.sum();
    }

    /** How many event-bus messages carried them: fewer than the requests when bundled. */
    public long forwardMessages() {
        return forwardMessages.sum();
    }

    /** Only a partition running here is known: the directory's answer. */
    @Override
    public boolean knownEmpty(String queueName, int partition) {
        return local.knownEmpty(queueName, partition);
    }

    @Override
    public boolean runsHere(String queueName, int partition) {
        return ownership.ownsLocally(queueName, partition);
    }

    @Override
    public PartitionStats[] stats(String queueName) {
        return stats.stats(queueName);
    }

    private <R> void attempt(
            String queueName, int partition, PartitionRequest<R> request, int n, long deadline, Promise<R> answer) {
        Member owner = ownership.owner(queueName, partition);
        Future<R> tried;
        if (owner == null) {
            tried = Future.failedFuture(new PartitionMoved(queueName, partition));
        } else if (owner.localMember()) {
            tried = local.execute(queueName, partition, request);
        } else if (request instanceof PartitionRequest.Batched<?> batch && !HazelcastOwnership.takesBatches(owner)) {
            tried = oneByOne(HazelcastOwnership.nodeId(owner), queueName, partition, batch);
        } else {
            tried = forward(
                    HazelcastOwnership.nodeId(owner),
                    HazelcastOwnership.takesBundles(owner),
                    queueName,
                    partition,
                    request);
        }
        tried.onComplete(ar -> {
            if (ar.succeeded()) {
                answer.complete(ar.result());
                return;
            }
            switch (afterFailure(ar.cause(), n, System.currentTimeMillis(), deadline)) {
                case FAIL -> answer.fail(ar.cause());
                case GIVE_UP ->
                    answer.fail(new SqsException(
                            ErrorCode.SERVICE_UNAVAILABLE, "The queue partition is moving between nodes; try again."));
                case RETRY ->
                    vertx.setTimer(RETRY_MILLIS, id -> attempt(queueName, partition, request, n + 1, deadline, answer));
            }
        });
    }

    /** What follows a failed attempt: the error goes to the client, the client is told to retry later, or it is retried here. */
    enum Next {
        FAIL,
        GIVE_UP,
        RETRY
    }

    /** @param attempt the failed attempt's number, from 1; {@code nowMillis} and {@code deadlineMillis} on the same clock */
    static Next afterFailure(Throwable err, int attempt, long nowMillis, long deadlineMillis) {
        if (!retryable(err)) {
            return Next.FAIL;
        }
        return attempt >= MAX_ATTEMPTS || nowMillis > deadlineMillis ? Next.GIVE_UP : Next.RETRY;
    }

    /** @param bundles whether the owner reads {@link ForwardedBundle}s (an older build does not) */
    @SuppressWarnings("unchecked")
    private <R> Future<R> forward(
            String nodeId, boolean bundles, String queueName, int partition, PartitionRequest<R> request) {
        if (nodeId == null) {
            return Future.failedFuture(new PartitionMoved(queueName, partition));
        }
        forwarded.increment();
        ForwardedRequest body = new ForwardedRequest(queueName, partition, request);
        ForwardOutbox outbox = bundles ? outbox() : null;
        Future<ForwardedReply> sent = outbox == null ? transport.one(nodeId, body) : outbox.add(nodeId, body);
        return sent.map(reply -> {
            if (reply.kind() == ForwardedReply.Kind.MOVED) {
                throw new PartitionMoved(queueName, partition);
            }
            return (R) reply.get();
        });
    }

    /** The calling event loop's outbox; null off an event loop, where a request goes alone. */
    private ForwardOutbox outbox() {
        Context context = Vertx.currentContext();
        if (context == null || !context.isEventLoopContext()) {
            return null;
        }
        ForwardOutbox outbox = context.get(outboxKey);
        if (outbox == null) {
            outbox = new ForwardOutbox(transport, task -> context.runOnContext(v -> task.run()));
            context.put(outboxKey, outbox);
        }
        return outbox;
    }

    /**
     * A batch for an owner of an older build, which would not decode it: its parts, each forwarded as
     * it was before batches existed, answered together. Should one fail, the batch is retried whole:
     * each part is idempotent (a send by its message id, a delete by its receipt token).
     */
    @SuppressWarnings("unchecked")
    private <R, E> Future<R> oneByOne(
            String nodeId, String queueName, int partition, PartitionRequest.Batched<E> batch) {
        List<Future<E>> parts = new ArrayList<>(batch.parts().size());
        for (PartitionRequest<E> part : batch.parts()) {
            parts.add(forward(nodeId, false, queueName, partition, part));
        }
        return Future.all(parts)
                .map(all -> (R) parts.stream().map(Future::result).toList());
    }

    /**
     * Moved, no owner yet, or the owner did not answer (gone, leaving, frozen, or its address
     * moved): look again. A request that timed out may have run; repeating it is at worst a
     * duplicate (FIFO sends are deduplicated by their id, deletes are idempotent, a lost receive's
     * messages come back after their visibility timeout), which at-least-once delivery allows.
     */
    private static boolean retryable(Throwable err) {
        return err instanceof PartitionMoved || err instanceof ReplyException;
    }
}
