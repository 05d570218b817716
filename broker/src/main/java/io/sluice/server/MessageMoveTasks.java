package io.sluice.server;

import io.sluice.partition.PartitionStats;
import io.sluice.protocol.Params;
import io.sluice.queue.ErrorCode;
import io.sluice.queue.MessageRecord;
import io.sluice.queue.MovePacer;
import io.sluice.queue.QueueMeta;
import io.sluice.queue.RedrivePolicy;
import io.sluice.queue.ShortPollSampler;
import io.sluice.queue.SqsException;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Message move tasks: StartMessageMoveTask, ListMessageMoveTasks, CancelMessageMoveTask. A task
 * takes messages from a dead-letter queue, at most MaxNumberOfMessagesPerSecond, and moves each
 * to its original source queue (or the given destination) with the same id, body and
 * attributes. It runs on the event loop of the request that started it, as timers, never blocking.
 */
final class MessageMoveTasks {
    static final int DEFAULT_RATE = 500;
    private static final int BATCH = 10;
    private static final long VISIBILITY_MILLIS = 30_000;
    private static final int KEPT_PER_SOURCE = 10;
    private static final long IDLE_RETRY_MILLIS = 50;

    private final Broker broker;
    private final MessageMover mover;
    private final PartitionClaims claims;
    private final Vertx vertx;
    /** Tasks by handle, and each source's most recent tasks, newest first. Shared by every HTTP loop. */
    private final Map<String, Task> byHandle = new ConcurrentHashMap<>();
    private final Map<String, Deque<Task>> bySource = new ConcurrentHashMap<>();

    MessageMoveTasks(Broker broker, MessageMover mover, PartitionClaims claims, Vertx vertx) {
        this.broker = broker;
        this.mover = mover;
        this.claims = claims;
        this.vertx = vertx;
    }

    private final class Task {
        final String handle;
        final String sourceArn;
        final String destinationArn;
        final Integer requestedRate;
        final MovePacer pacer;
        final long started;
        final long toMove;
        volatile String status = "RUNNING";
        volatile String failureReason;
        volatile long moved;
        volatile boolean cancelRequested;

        Task(String sourceArn, String destinationArn, Integer requestedRate, long toMove) {
            this.handle = Base64.getUrlEncoder().withoutPadding().encodeToString(
                    (io.sluice.queue.Ids.newId() + "|" + sourceArn).getBytes(StandardCharsets.UTF_8));
            this.sourceArn = sourceArn;
            this.destinationArn = destinationArn;
            this.requestedRate = requestedRate;
            this.pacer = new MovePacer(broker.clock, requestedRate == null ? DEFAULT_RATE : requestedRate);
            this.started = broker.clock.millis();
            this.toMove = toMove;
        }

        JsonObject describe() {
            JsonObject o = new JsonObject();
            if (status.equals("RUNNING")) {
                o.put("TaskHandle", handle);
            }
            o.put("Status", status).put("SourceArn", sourceArn);
            if (destinationArn != null) {
                o.put("DestinationArn", destinationArn);
            }
            if (requestedRate != null) {
                o.put("MaxNumberOfMessagesPerSecond", requestedRate);
            }
            o.put("ApproximateNumberOfMessagesMoved", moved).put("ApproximateNumberOfMessagesToMove", toMove);
            if (failureReason != null) {
                o.put("FailureReason", failureReason);
            }
            return o.put("StartedTimestamp", started);
        }
    }

    Future<JsonObject> start(Params params, RequestInfo info) {
        String sourceArn = params.requiredString("SourceArn");
        QueueMeta source = existing(sourceArn);
        String destinationArn = params.optionalString("DestinationArn");
        if (destinationArn != null) {
            existing(destinationArn);
        }
        Integer rate = params.optionalInt("MaxNumberOfMessagesPerSecond");
        if (rate != null && (rate < 1 || rate > 500)) {
            throw SqsException.invalidParameter("Value " + rate + " for parameter MaxNumberOfMessagesPerSecond is invalid."
                    + " Reason: must be between 1 and 500.");
        }
        if (!isDeadLetterQueue(sourceArn)) {
            throw SqsException.invalidParameter("Source queue must be configured as a Dead Letter Queue.");
        }
        Task task = new Task(sourceArn, destinationArn, rate, visible(source));
        Deque<Task> recent = bySource.computeIfAbsent(sourceArn, k -> new ArrayDeque<>());
        synchronized (recent) {
            Task last = recent.peekFirst();
            if (last != null && last.status.equals("RUNNING")) {
                throw new SqsException(ErrorCode.UNSUPPORTED_OPERATION,
                        "There is already a task running. Only one active task is allowed for a source queue arn at a given time.");
            }
            recent.addFirst(task);
            while (recent.size() > KEPT_PER_SOURCE) {
                byHandle.remove(recent.removeLast().handle);
            }
        }
        byHandle.put(task.handle, task);
        step(task);
        return Future.succeededFuture(new JsonObject().put("TaskHandle", task.handle));
    }

    Future<JsonObject> list(Params params, RequestInfo info) {
        String sourceArn = params.requiredString("SourceArn");
        existing(sourceArn);
        Integer max = params.optionalInt("MaxResults");
        if (max != null && (max < 1 || max > 10)) {
            throw SqsException.invalidParameter("Value " + max + " for parameter MaxResults is invalid."
                    + " Reason: must be between 1 and 10.");
        }
        JsonArray results = new JsonArray();
        Deque<Task> recent = bySource.get(sourceArn);
        if (recent != null) {
            synchronized (recent) {
                recent.stream().limit(max == null ? 1 : max).forEach(t -> results.add(t.describe()));
            }
        }
        return Future.succeededFuture(new JsonObject().put("Results", results));
    }

    Future<JsonObject> cancel(Params params, RequestInfo info) {
        Task task = byHandle.get(params.requiredString("TaskHandle"));
        if (task == null) {
            throw new SqsException(ErrorCode.RESOURCE_NOT_FOUND, "The resource that you specified for the TaskHandle parameter does not exist.");
        }
        if (!task.status.equals("RUNNING")) {
            throw new SqsException(ErrorCode.UNSUPPORTED_OPERATION, "Only a RUNNING task can be cancelled; this one is " + task.status + ".");
        }
        task.cancelRequested = true;
        task.status = "CANCELLING";
        return Future.succeededFuture(new JsonObject().put("ApproximateNumberOfMessagesMoved", task.moved));
    }

    /** One round: take what the pace allows from the source, move each message, then schedule the next round. */
    private void step(Task task) {
        if (task.cancelRequested) {
            task.status = "CANCELLED";
            return;
        }
        QueueMeta source = find(task.sourceArn);
        if (source == null) {
            fail(task, "The source queue was deleted.");
            return;
        }
        long wait = task.pacer.millisUntilNext();
        if (wait > 0) {
            vertx.setTimer(wait, id -> step(task));
            return;
        }
        int permits = task.pacer.take(BATCH);
        claims.claim(source, ShortPollSampler.all(source.partitions(), ThreadLocalRandom.current()), permits,
                        VISIBILITY_MILLIS, false)
                .compose(claimed -> {
                    if (claimed.isEmpty()) {
                        return Future.succeededFuture(false);
                    }
                    List<Future<Void>> moves = new ArrayList<>();
                    for (PartitionClaims.Claimed c : claimed) {
                        moves.add(moveOne(task, source, c));
                    }
                    return Future.all(moves).map(true);
                })
                .onComplete(ar -> {
                    if (ar.failed()) {
                        fail(task, ar.cause().getMessage());
                    } else if (!ar.result() && visible(source) == 0) {
                        task.status = task.cancelRequested ? "CANCELLED" : "COMPLETED";
                    } else if (!ar.result()) {
                        // Counts say there is more but none was claimable yet: look again shortly, don't spin.
                        vertx.setTimer(IDLE_RETRY_MILLIS, id -> step(task));
                    } else {
                        vertx.runOnContext(v -> step(task));
                    }
                });
    }

    private Future<Void> moveOne(Task task, QueueMeta source, PartitionClaims.Claimed c) {
        String destArn = task.destinationArn != null ? task.destinationArn : c.delivery().deadLetterSourceArn();
        QueueMeta dest = destArn == null ? null : find(destArn);
        if (dest == null) {
            return Future.failedFuture(new IllegalStateException(
                    "No destination for message " + c.delivery().messageId() + ": its source queue is unknown or deleted."));
        }
        // Back in a source queue the message starts afresh: its receive count must not send it straight back.
        MessageRecord copy = MessageRecord.movedCopy(c.delivery(), null, 0);
        return mover.move(source, c.partition(), c.delivery(), dest, copy).onSuccess(v -> task.moved++);
    }

    private void fail(Task task, String reason) {
        task.failureReason = reason;
        task.status = "FAILED";
    }

    private boolean isDeadLetterQueue(String arn) {
        for (QueueMeta q : broker.registry.list("")) {
            RedrivePolicy p = q.redrivePolicy();
            if (p != null && p.deadLetterTargetArn().equals(arn)) {
                return true;
            }
        }
        return false;
    }

    private long visible(QueueMeta q) {
        long sum = 0;
        for (PartitionStats s : broker.router.stats(q.name())) {
            sum += s.visible();
        }
        return sum;
    }

    private QueueMeta existing(String arn) {
        QueueMeta q = find(arn);
        if (q == null) {
            throw new SqsException(ErrorCode.RESOURCE_NOT_FOUND, "The resource that you specified for the SourceArn parameter does not exist.");
        }
        return q;
    }

    private QueueMeta find(String arn) {
        String name = broker.urls.nameOfArn(arn);
        return name == null ? null : broker.registry.find(name);
    }
}
