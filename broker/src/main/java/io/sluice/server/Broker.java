package io.sluice.server;

import io.sluice.cluster.MoveTaskStore;
import io.sluice.config.BrokerConfig;
import io.sluice.partition.PartitionMoved;
import io.sluice.partition.PartitionRouter;
import io.sluice.partition.PartitionStats;
import io.sluice.protocol.Params;
import io.sluice.queue.Clock;
import io.sluice.queue.ErrorCode;
import io.sluice.queue.MessageCounts;
import io.sluice.queue.QueueAttributes;
import io.sluice.queue.QueueMeta;
import io.sluice.queue.QueueRegistry;
import io.sluice.queue.ReceiptHandle;
import io.sluice.queue.SqsException;
import io.sluice.queue.UnknownQueueException;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.ReplyException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.function.Supplier;

/** The parts every action handler shares; all are safe to use from any event loop. */
final class Broker {
    final BrokerConfig config;
    final Clock clock;
    final QueueRegistry registry;
    final PartitionRouter router;
    final ReceiptHandle.Codec receipts;
    final QueueUrls urls;
    final LongPolls longPolls;
    final MemoryGuard memory;
    /** The cluster's message move tasks. */
    final MoveTaskStore moveTaskStore;

    final Metrics metrics;

    Broker(
            BrokerConfig config,
            Clock clock,
            QueueRegistry registry,
            PartitionRouter router,
            ReceiptHandle.Codec receipts,
            QueueUrls urls,
            LongPolls longPolls,
            MemoryGuard memory,
            MoveTaskStore moveTaskStore,
            Metrics metrics) {
        this.metrics = metrics;
        this.config = config;
        this.clock = clock;
        this.registry = registry;
        this.router = router;
        this.receipts = receipts;
        this.urls = urls;
        this.longPolls = longPolls;
        this.memory = memory;
        this.moveTaskStore = moveTaskStore;
    }

    private MessageMoveTasks moveTasks;

    /**
     * The node's one runner of move tasks, made by the first HTTP verticle that asks (exactly
     * once: making one starts its periodic scan).
     */
    synchronized MessageMoveTasks moveTasks(Supplier<MessageMoveTasks> create) {
        if (moveTasks == null) {
            moveTasks = create.get();
        }
        return moveTasks;
    }

    /**
     * The queue a request's QueueUrl names, if the caller may act on it: its own account's, or
     * another's whose Policy allows the caller's account the request's action. MissingParameter,
     * QueueDoesNotExist or AccessDenied otherwise.
     */
    QueueMeta queueOf(Params params, RequestInfo info) {
        String name = urls.nameOf(params.requiredString("QueueUrl"), info.accountId());
        QueueMeta meta = registry.find(name);
        if (meta == null) {
            throw QueueRegistry.notKnown(name);
        }
        checkAccess(meta, info);
        return meta;
    }

    /**
     * Whether a request refused for naming a queue this node has not heard of ({@link
     * UnknownQueueException}) may run again: true once this node knows the queue (created through
     * another node a moment ago), false when the cluster has no such queue or its news did not come
     * within {@link QueueRegistry#NEWS_WAIT_MILLIS}. Completes on the caller's event loop.
     */
    Future<Boolean> caughtUpWith(String name) {
        return await(registry.awaitKnown(name));
    }

    /** The owner may do anything; another account what the queue's Policy allows it. */
    void checkAccess(QueueMeta meta, RequestInfo info) {
        if (!urls.accountOf(meta.name()).equals(info.accountId())
                && !QueuePolicy.allows(
                        meta.attributes().get(QueueAttributes.POLICY), info.accountId(), info.action())) {
            throw new SqsException(
                    ErrorCode.ACCESS_DENIED, "Access to the resource " + urls.url(meta.name()) + " is denied.");
        }
    }

    /** A registry write as a Vert.x future, completing on the caller's event loop. */
    static <T> Future<T> await(CompletionStage<T> stage) {
        Context ctx = Vertx.currentContext();
        Future<T> f = ctx == null ? Future.fromCompletionStage(stage) : Future.fromCompletionStage(stage, ctx);
        return f.recover(err -> Future.failedFuture(unwrap(err)));
    }

    /**
     * What a client is told of a failure. A request to another node that timed out or failed in
     * transit may or may not have run: the client gets a retryable ServiceUnavailable, as SQS
     * does for its own internal hiccups.
     */
    static SqsException asSqsError(Throwable failure) {
        Throwable err = unwrap(failure);
        if (err instanceof SqsException e) {
            return e;
        }
        if (err instanceof ReplyException || err instanceof PartitionMoved) {
            return new SqsException(
                    ErrorCode.SERVICE_UNAVAILABLE, "The queue partition's node did not answer; try again.");
        }
        return null;
    }

    /** The failure inside the wrappers CompletableFuture adds. */
    static Throwable unwrap(Throwable err) {
        Throwable t = err;
        while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }

    /** The queue's message counts: the sums of its partitions' last published counts. */
    MessageCounts counts(String queueName) {
        long visible = 0;
        long inFlight = 0;
        long delayed = 0;
        for (PartitionStats s : router.stats(queueName)) {
            visible += s.visible();
            inFlight += s.inFlight();
            delayed += s.delayed();
        }
        return new MessageCounts(visible, inFlight, delayed);
    }

    /** The queue an SQS ARN of this account names, or null when there is none. */
    QueueMeta queueOfArn(String arn) {
        String name = urls.nameOfArn(arn);
        return name == null ? null : registry.find(name);
    }

    /**
     * The queue an SQS ARN names, as a request needs it: {@code absent}'s refusal when there is none, marked
     * as caused by this node not knowing the queue (see {@link UnknownQueueException}).
     */
    QueueMeta requireQueueOfArn(String arn, Supplier<SqsException> absent) {
        QueueMeta meta = queueOfArn(arn);
        if (meta != null) {
            return meta;
        }
        String name = urls.nameOfArn(arn);
        throw name == null ? absent.get() : new UnknownQueueException(name, absent.get());
    }
}
