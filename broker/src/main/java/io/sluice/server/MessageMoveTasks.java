package io.sluice.server;

import io.sluice.cluster.MoveTask;
import io.sluice.cluster.MoveTaskStore;
import io.sluice.protocol.Params;
import io.sluice.queue.ErrorCode;
import io.sluice.queue.Ids;
import io.sluice.queue.MessageRecord;
import io.sluice.queue.MovePacer;
import io.sluice.queue.QueueMeta;
import io.sluice.queue.RedrivePolicy;
import io.sluice.queue.ShortPollSampler;
import io.sluice.queue.SqsException;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ThreadLocalRandom;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Message move tasks: StartMessageMoveTask, ListMessageMoveTasks, CancelMessageMoveTask. A task
 * takes messages from a dead-letter queue, at most MaxNumberOfMessagesPerSecond, and moves each
 * to its original source queue (or the given destination) with the same id, body and attributes,
 * enqueued anew.
 *
 * <p>Tasks belong to the cluster: their state is in {@link MoveTaskStore}, so any node lists and
 * cancels them. The node owning a task's key (the Hazelcast partition of its source ARN) runs
 * it: every node looks once a second at the keys it owns and runs each active task it is not
 * running yet, and stops running the ones whose key moved away. When a node dies, its keys'
 * backups become primaries elsewhere and their tasks resume there within seconds.
 *
 * <p>A run takes a batch from the source (claiming it for {@link #CLAIM_VISIBILITY_MILLIS}),
 * stores the copies, adds the batch to the task's count, then deletes the originals. A run that
 * dies in between leaves its claimed messages in flight; they come back after the claim and are
 * moved again (the destination keeps a message id once while the first copy is there). Before
 * claiming, a run writes into the task until when its claims may last (a lease), so a run that
 * takes over knows how long to keep looking before it may call the task COMPLETED.
 *
 * <p>All of a node's runs live on one event loop (the runner); requests only touch the store.
 * Every Hazelcast callback is given an executor that hands it to a Vert.x context.
 */
final class MessageMoveTasks {
    private static final Logger LOG = Logger.getLogger(MessageMoveTasks.class.getName());
    static final int DEFAULT_RATE = 500;
    private static final int BATCH = 10;
    /** How long a claimed message stays hidden in the source: a dead run's claims are back after this. */
    static final long CLAIM_VISIBILITY_MILLIS = 5_000;
    /** A lease written before claiming covers the claims started within this long after it. */
    private static final long LEASE_MILLIS = 2_000;

    private static final long SCAN_MILLIS = 1_000;
    private static final long IDLE_RETRY_MILLIS = 50;
    /** Nothing to claim, but claims of an earlier run (or failed moves of this one) may still come back. */
    private static final long AWAIT_CLAIMS_RETRY_MILLIS = 250;

    private static final long TROUBLE_RETRY_MILLIS = 500;
    /** A task whose source stays unreachable this long fails. */
    private static final long GIVE_UP_MILLIS = 60_000;

    private final Broker broker;
    private final MessageMover mover;
    private final PartitionClaims claims;
    private final Vertx vertx;
    private final MoveTaskStore store;
    /** The event loop every run of this node and the periodic scan live on. */
    private final Context runner;
    /** Runs of this node by task handle; touched on the runner only. */
    private final Map<String, Run> running = new HashMap<>();

    private boolean scanning;

    MessageMoveTasks(Broker broker, MessageMover mover, PartitionClaims claims, Vertx vertx) {
        this.broker = broker;
        this.mover = mover;
        this.claims = claims;
        this.vertx = vertx;
        this.store = broker.moveTaskStore;
        this.runner = vertx.getOrCreateContext();
        runner.runOnContext(v -> vertx.setPeriodic(SCAN_MILLIS, id -> scan()));
    }

    /** One run of a task on this node; confined to the runner. */
    private static final class Run {
        final String handle;
        final String sourceArn;
        final String destinationArn;
        final MovePacer pacer;
        final String runId;
        boolean stopped;
        /** Not COMPLETED before this: claims of earlier runs, or of failed moves of this one, may still come back. */
        long awaitClaimsUntil;
        /** Claims started before this are covered by the lease last written. */
        long leaseValidUntil;
        /** When the source or the store started failing, 0 while they answer. */
        long troubleSince;

        Run(MoveTask task, String runId, MovePacer pacer) {
            this.handle = task.handle();
            this.sourceArn = task.sourceArn();
            this.destinationArn = task.destinationArn();
            this.pacer = pacer;
            this.runId = runId;
        }
    }

    /** A message whose destination is unknown or gone: the task cannot go on. */
    private static final class NoDestination extends RuntimeException {
        NoDestination(String message) {
            super(message, null, false, false);
        }
    }

    // ------------------------------------------------------------------ the three actions

    Future<JsonObject> start(Params params, RequestInfo info) {
        String sourceArn = params.requiredString("SourceArn");
        QueueMeta source = existing(sourceArn, "SourceArn");
        String destinationArn = params.optionalString("DestinationArn");
        if (destinationArn != null) {
            existing(destinationArn, "DestinationArn");
        }
        Integer rate = params.optionalInt("MaxNumberOfMessagesPerSecond");
        if (rate != null && (rate < 1 || rate > 500)) {
            throw SqsException.invalidParameter(
                    "Value " + rate + " for parameter MaxNumberOfMessagesPerSecond is invalid."
                            + " Reason: must be between 1 and 500.");
        }
        if (!isDeadLetterQueue(sourceArn)) {
            throw SqsException.invalidParameter("Source queue must be configured as a Dead Letter Queue.");
        }
        String handle = Base64.getUrlEncoder()
                .withoutPadding()
                .encodeToString((Ids.newId() + "|" + sourceArn).getBytes(StandardCharsets.UTF_8));
        MoveTask task =
                MoveTask.started(handle, sourceArn, destinationArn, rate, broker.clock.millis(), visible(source));
        return on(caller(), store.start(task))
                .map(active -> {
                    if (active != null) {
                        throw new SqsException(
                                ErrorCode.UNSUPPORTED_OPERATION,
                                "There is already a task running. Only one active task is allowed for a source queue arn at a given time.");
                    }
                    if (store.ownedHere(sourceArn)) {
                        runner.runOnContext(v -> adopt(task));
                    }
                    return new JsonObject().put("TaskHandle", handle);
                })
                .recover(MessageMoveTasks::unavailable);
    }

    Future<JsonObject> list(Params params, RequestInfo info) {
        String sourceArn = params.requiredString("SourceArn");
        existing(sourceArn, "SourceArn");
        Integer max = params.optionalInt("MaxResults");
        if (max != null && (max < 1 || max > 10)) {
            throw SqsException.invalidParameter(
                    "Value " + max + " for parameter MaxResults is invalid." + " Reason: must be between 1 and 10.");
        }
        return on(caller(), store.list(sourceArn))
                .map(recent -> {
                    JsonArray results = new JsonArray();
                    if (recent != null) {
                        recent.newestFirst().stream()
                                .limit(max == null ? 1 : max)
                                .forEach(t -> results.add(describe(t)));
                    }
                    return new JsonObject().put("Results", results);
                })
                .recover(MessageMoveTasks::unavailable);
    }

    Future<JsonObject> cancel(Params params, RequestInfo info) {
        String handle = params.requiredString("TaskHandle");
        String sourceArn = sourceOfHandle(handle);
        if (sourceArn == null) {
            return Future.failedFuture(taskNotFound());
        }
        return on(caller(), store.cancel(sourceArn, handle))
                .map(before -> {
                    if (before == null) {
                        throw taskNotFound();
                    }
                    if (before.status() != MoveTask.Status.RUNNING) {
                        throw new SqsException(
                                ErrorCode.UNSUPPORTED_OPERATION,
                                "Only a RUNNING task can be cancelled; this one is " + before.status() + ".");
                    }
                    return new JsonObject().put("ApproximateNumberOfMessagesMoved", before.moved());
                })
                .recover(MessageMoveTasks::unavailable);
    }

    private static JsonObject describe(MoveTask t) {
        JsonObject o = new JsonObject();
        if (t.status() == MoveTask.Status.RUNNING) {
            o.put("TaskHandle", t.handle());
        }
        o.put("Status", t.status().name()).put("SourceArn", t.sourceArn());
        if (t.destinationArn() != null) {
            o.put("DestinationArn", t.destinationArn());
        }
        if (t.rate() != null) {
            o.put("MaxNumberOfMessagesPerSecond", t.rate());
        }
        o.put("ApproximateNumberOfMessagesMoved", t.moved()).put("ApproximateNumberOfMessagesToMove", t.toMove());
        if (t.failureReason() != null) {
            o.put("FailureReason", t.failureReason());
        }
        return o.put("StartedTimestamp", t.startedTimestamp());
    }

    /** The source queue ARN a handle was made for (the key its task is kept under), or null. */
    private static String sourceOfHandle(String handle) {
        try {
            String decoded = new String(Base64.getUrlDecoder().decode(handle), StandardCharsets.UTF_8);
            int bar = decoded.indexOf('|');
            return bar < 0 ? null : decoded.substring(bar + 1);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    private static SqsException taskNotFound() {
        return new SqsException(
                ErrorCode.RESOURCE_NOT_FOUND,
                "The resource that you specified for the TaskHandle parameter does not exist.");
    }

    /**
     * A store that did not answer (members leaving, partitions moving) or refused (this node without
     * its cluster's majority) is a retryable error, not an internal one.
     */
    private static <T> Future<T> unavailable(Throwable err) {
        Throwable t = MoveTaskStore.translated(Broker.unwrap(err));
        if (t instanceof SqsException) {
            return Future.failedFuture(t);
        }
        LOG.log(Level.FINE, "move task store did not answer", t);
        return Future.failedFuture(new SqsException(
                ErrorCode.SERVICE_UNAVAILABLE, "The message move task store did not answer; try again."));
    }

    // ------------------------------------------------------------------ which tasks run here

    /** Runs the active tasks whose keys this node owns and stops the runs whose keys moved away. */
    private void scan() {
        if (scanning) {
            return;
        }
        scanning = true;
        for (Run run : running.values()) {
            if (!run.stopped && store.ownedElsewhere(run.sourceArn)) {
                LOG.info("Message move task " + run.handle + " moved to another node; run " + run.runId + " stops");
                run.stopped = true;
            }
        }
        List<Future<Void>> reads = new ArrayList<>();
        for (String sourceArn : store.ownedSources()) {
            reads.add(on(runner, store.list(sourceArn)).map(recent -> {
                if (recent != null
                        && !recent.newestFirst().isEmpty()
                        && recent.newestFirst().get(0).status().active()) {
                    adopt(recent.newestFirst().get(0));
                }
                return null;
            }));
        }
        Future.join(reads).onComplete(ar -> {
            scanning = false;
            if (ar.failed()) {
                LOG.log(Level.FINE, "move task scan failed; next one in " + SCAN_MILLIS + " ms", ar.cause());
            }
        });
    }

    /** Starts running an active task here unless this node runs it already. */
    private void adopt(MoveTask task) {
        if (running.containsKey(task.handle())) {
            return;
        }
        int rate = task.rate() == null ? DEFAULT_RATE : task.rate();
        Run run = new Run(task, store.memberId() + "/" + Ids.newId(), new MovePacer(broker.clock, rate));
        running.put(run.handle, run);
        on(runner, store.takeOver(run.sourceArn, run.handle, run.runId)).onComplete(ar -> {
            MoveTask before = ar.succeeded() ? ar.result() : null;
            if (before == null || !before.status().active()) {
                end(run);
                return;
            }
            run.awaitClaimsUntil = before.claimsUntil();
            LOG.info("Message move task " + run.handle + " runs on this node (member " + store.memberId() + ", run "
                    + run.runId + ")"
                    + (before.runId() == null
                            ? ""
                            : ", taken over from run " + before.runId() + " at " + before.moved() + " moved"));
            step(run);
        });
    }

    private void end(Run run) {
        running.remove(run.handle, run);
    }

    // ------------------------------------------------------------------ one run

    /** One round: renew the lease if due, take what the pace allows from the source, move it. */
    private void step(Run run) {
        if (run.stopped) {
            end(run);
            return;
        }
        QueueMeta source = find(run.sourceArn);
        if (source == null) {
            finish(run, MoveTask.Status.FAILED, "The source queue was deleted.");
            return;
        }
        long wait = run.pacer.millisUntilNext();
        if (wait > 0) {
            vertx.setTimer(wait, id -> step(run));
            return;
        }
        long now = broker.clock.millis();
        if (now >= run.leaseValidUntil) {
            advance(run, 0).onComplete(ar -> {
                if (ar.failed()) {
                    trouble(run, ar.cause());
                } else if (ar.result()) {
                    step(run);
                } else {
                    end(run);
                }
            });
            return;
        }
        int permits = run.pacer.take(BATCH);
        onRunner(claims.claim(
                        source,
                        ShortPollSampler.all(source.partitions(), ThreadLocalRandom.current()),
                        permits,
                        CLAIM_VISIBILITY_MILLIS,
                        false))
                .onComplete(ar -> {
                    if (ar.failed()) {
                        trouble(run, ar.cause());
                        return;
                    }
                    run.troubleSince = 0;
                    if (ar.result().isEmpty()) {
                        idle(run, source);
                    } else {
                        moveBatch(run, source, ar.result(), now);
                    }
                });
    }

    /**
     * Stores the batch's copies, counts them in the task, then deletes their originals. A message
     * whose copy or delete failed stays in flight in the source and comes back after its claim.
     */
    private void moveBatch(Run run, QueueMeta source, List<PartitionClaims.Claimed> batch, long claimedAt) {
        List<Future<Void>> stores = new ArrayList<>(batch.size());
        for (PartitionClaims.Claimed c : batch) {
            stores.add(storeCopy(run, c));
        }
        onRunner(Future.join(stores)).onComplete(joined -> {
            List<PartitionClaims.Claimed> stored = new ArrayList<>(batch.size());
            NoDestination noDestination = null;
            for (int i = 0; i < batch.size(); i++) {
                Future<Void> f = stores.get(i);
                if (f.succeeded()) {
                    stored.add(batch.get(i));
                } else if (f.cause() instanceof NoDestination nd) {
                    noDestination = nd;
                } else {
                    LOG.log(
                            Level.FINE,
                            "storing a copy of " + batch.get(i).delivery().messageId() + " failed",
                            f.cause());
                }
            }
            if (stored.size() < batch.size()) {
                run.awaitClaimsUntil = Math.max(run.awaitClaimsUntil, claimedAt + CLAIM_VISIBILITY_MILLIS);
            }
            NoDestination failure = noDestination;
            advance(run, stored.size()).onComplete(counted -> {
                if (counted.failed()) {
                    // Whether the count was added is unknown: leave the originals to come back and be moved again.
                    run.awaitClaimsUntil = Math.max(run.awaitClaimsUntil, claimedAt + CLAIM_VISIBILITY_MILLIS);
                    trouble(run, counted.cause());
                    return;
                }
                deleteOriginals(run, source, stored, claimedAt).onComplete(deleted -> {
                    if (failure != null) {
                        finish(run, MoveTask.Status.FAILED, failure.getMessage());
                    } else if (counted.result()) {
                        step(run);
                    } else {
                        end(run);
                    }
                });
            });
        });
    }

    private Future<Void> storeCopy(Run run, PartitionClaims.Claimed c) {
        String destArn =
                run.destinationArn != null ? run.destinationArn : c.delivery().deadLetterSourceArn();
        QueueMeta dest = destArn == null ? null : find(destArn);
        if (dest == null) {
            return Future.failedFuture(new NoDestination("No destination for message "
                    + c.delivery().messageId() + ": its source queue is unknown or deleted."));
        }
        return mover.store(dest, MessageRecord.redriven(c.delivery(), broker.clock.millis()));
    }

    private Future<Void> deleteOriginals(
            Run run, QueueMeta source, List<PartitionClaims.Claimed> stored, long claimedAt) {
        List<Future<Boolean>> deletes = new ArrayList<>(stored.size());
        for (PartitionClaims.Claimed c : stored) {
            deletes.add(mover.deleteOriginal(source, c.partition(), c.delivery()));
        }
        return onRunner(Future.join(deletes)).transform(ar -> {
            for (Future<Boolean> d : deletes) {
                if (d.failed() || !d.result()) {
                    // The original is (or will be) back in the source: it is moved again, so wait for it.
                    run.awaitClaimsUntil = Math.max(run.awaitClaimsUntil, claimedAt + CLAIM_VISIBILITY_MILLIS);
                }
            }
            return Future.succeededFuture();
        });
    }

    /**
     * Nothing claimable. The task is COMPLETED once no claim of any run can still bring a message
     * back and the source shows nothing visible; until then look again shortly, without spinning.
     */
    private void idle(Run run, QueueMeta source) {
        if (broker.clock.millis() < run.awaitClaimsUntil) {
            vertx.setTimer(AWAIT_CLAIMS_RETRY_MILLIS, id -> step(run));
        } else if (visible(source) > 0) {
            vertx.setTimer(IDLE_RETRY_MILLIS, id -> step(run));
        } else {
            finish(run, MoveTask.Status.COMPLETED, null);
        }
    }

    /**
     * Adds {@code moved} to the task and renews the lease; true when the run goes on, false when
     * the task was cancelled, ended, or taken over by another run.
     */
    private Future<Boolean> advance(Run run, int moved) {
        long now = broker.clock.millis();
        return on(
                        runner,
                        store.advance(
                                run.sourceArn,
                                run.handle,
                                run.runId,
                                moved,
                                now + LEASE_MILLIS + CLAIM_VISIBILITY_MILLIS))
                .map(before -> {
                    run.leaseValidUntil = now + LEASE_MILLIS;
                    if (before == null) {
                        return false;
                    }
                    if (!run.runId.equals(before.runId())) {
                        LOG.info("Message move task " + run.handle + " is run by " + before.runId() + " now; run "
                                + run.runId + " stops");
                        return false;
                    }
                    if (before.status() == MoveTask.Status.CANCELLING) {
                        LOG.info("Message move task " + run.handle + " ended CANCELLED after "
                                + (before.moved() + moved) + " moved");
                    }
                    return before.status() == MoveTask.Status.RUNNING;
                });
    }

    private void finish(Run run, MoveTask.Status status, String reason) {
        on(runner, store.finish(run.sourceArn, run.handle, run.runId, status, reason))
                .onComplete(ar -> {
                    end(run);
                    if (ar.failed()) {
                        // Still active in the store: the next scan takes it up again.
                        LOG.log(Level.FINE, "ending move task " + run.handle + " failed", ar.cause());
                    } else if (ar.result() != null
                            && run.runId.equals(ar.result().runId())) {
                        LOG.info("Message move task " + run.handle + " ended " + status
                                + (reason == null ? "" : ": " + reason) + " after "
                                + ar.result().moved() + " moved");
                    }
                });
    }

    /** The source or the store did not answer: try again shortly, and fail the task if it lasts. */
    private void trouble(Run run, Throwable err) {
        long now = broker.clock.millis();
        if (run.troubleSince == 0) {
            run.troubleSince = now;
            LOG.info("Message move task " + run.handle + ": " + Broker.unwrap(err) + "; trying again every "
                    + TROUBLE_RETRY_MILLIS + " ms for up to " + GIVE_UP_MILLIS + " ms");
        }
        if (now - run.troubleSince > GIVE_UP_MILLIS) {
            Throwable t = Broker.unwrap(err);
            finish(
                    run,
                    MoveTask.Status.FAILED,
                    t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage());
            return;
        }
        LOG.log(Level.FINE, "move task " + run.handle + ": trying again in " + TROUBLE_RETRY_MILLIS + " ms", err);
        vertx.setTimer(TROUBLE_RETRY_MILLIS, id -> step(run));
    }

    // ------------------------------------------------------------------ helpers

    /** The context of the request being served (its HTTP loop), or the runner outside one. */
    private Context caller() {
        Context ctx = Vertx.currentContext();
        return ctx != null ? ctx : runner;
    }

    /** A Hazelcast or JDK future as a Vert.x one completed on {@code ctx}: its callback is handed to that context. */
    private static <T> Future<T> on(Context ctx, CompletionStage<T> stage) {
        Promise<T> p = Promise.promise();
        stage.whenCompleteAsync(
                (value, err) -> {
                    if (err != null) {
                        p.fail(Broker.unwrap(err));
                    } else {
                        p.complete(value);
                    }
                },
                command -> ctx.runOnContext(v -> command.run()));
        return p.future();
    }

    /** A future of the routing layer (completed on whichever loop answered), continued on the runner. */
    private <T> Future<T> onRunner(Future<T> f) {
        Promise<T> p = Promise.promise();
        f.onComplete(ar -> runner.runOnContext(v -> p.handle(ar)));
        return p.future();
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
        return broker.counts(q.name()).visible();
    }

    /** The queue a request's ARN parameter names; ResourceNotFound when there is none. */
    private QueueMeta existing(String arn, String parameter) {
        return broker.requireQueueOfArn(
                arn,
                () -> new SqsException(
                        ErrorCode.RESOURCE_NOT_FOUND,
                        "The resource that you specified for the " + parameter + " parameter does not exist."));
    }

    private QueueMeta find(String arn) {
        return broker.queueOfArn(arn);
    }
}
