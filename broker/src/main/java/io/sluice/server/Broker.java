package io.sluice.server;

import io.sluice.cluster.MoveTaskStore;
import io.sluice.config.BrokerConfig;
import io.sluice.partition.PartitionRouter;
import io.sluice.partition.PartitionStats;
import io.sluice.protocol.Params;
import io.sluice.queue.Clock;
import io.sluice.queue.QueueMeta;
import io.sluice.queue.QueueRegistry;
import io.sluice.queue.ReceiptHandle;

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

    Broker(BrokerConfig config, Clock clock, QueueRegistry registry, PartitionRouter router,
           ReceiptHandle.Codec receipts, QueueUrls urls, LongPolls longPolls, MemoryGuard memory,
           MoveTaskStore moveTaskStore) {
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
    synchronized MessageMoveTasks moveTasks(java.util.function.Supplier<MessageMoveTasks> create) {
        if (moveTasks == null) {
            moveTasks = create.get();
        }
        return moveTasks;
    }

    /** The queue a request's QueueUrl names; MissingParameter or QueueDoesNotExist otherwise. */
    QueueMeta queueOf(Params params) {
        String name = urls.nameOf(params.requiredString("QueueUrl"));
        QueueMeta meta = registry.find(name);
        if (meta == null) {
            throw QueueRegistry.doesNotExist();
        }
        return meta;
    }

    /** A registry write as a Vert.x future, completing on the caller's event loop. */
    static <T> io.vertx.core.Future<T> await(java.util.concurrent.CompletionStage<T> stage) {
        io.vertx.core.Context ctx = io.vertx.core.Vertx.currentContext();
        io.vertx.core.Future<T> f = ctx == null ? io.vertx.core.Future.fromCompletionStage(stage)
                : io.vertx.core.Future.fromCompletionStage(stage, ctx);
        return f.recover(err -> io.vertx.core.Future.failedFuture(unwrap(err)));
    }

    /**
     * What a client is told of a failure. A request to another node that timed out or failed in
     * transit may or may not have run: the client gets a retryable ServiceUnavailable, as SQS
     * does for its own internal hiccups.
     */
    static io.sluice.queue.SqsException asSqsError(Throwable failure) {
        Throwable err = unwrap(failure);
        if (err instanceof io.sluice.queue.SqsException e) {
            return e;
        }
        if (err instanceof io.vertx.core.eventbus.ReplyException || err instanceof io.sluice.partition.PartitionMoved) {
            return new io.sluice.queue.SqsException(io.sluice.queue.ErrorCode.SERVICE_UNAVAILABLE,
                    "The queue partition's node did not answer; try again.");
        }
        return null;
    }

    /** The failure inside the wrappers CompletableFuture adds. */
    static Throwable unwrap(Throwable err) {
        Throwable t = err;
        while ((t instanceof java.util.concurrent.CompletionException || t instanceof java.util.concurrent.ExecutionException)
                && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }

    /** Visible, not visible, delayed: the sums of the partitions' last published counts. */
    long[] counts(String queueName) {
        long[] sums = new long[3];
        for (PartitionStats s : router.stats(queueName)) {
            sums[0] += s.visible();
            sums[1] += s.inFlight();
            sums[2] += s.delayed();
        }
        return sums;
    }
}
