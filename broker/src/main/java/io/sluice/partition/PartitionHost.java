package io.sluice.partition;

import io.sluice.queue.CommitPort;
import io.sluice.queue.ErrorCode;
import io.sluice.queue.Partition;
import io.sluice.queue.PartitionChange;
import io.sluice.queue.PartitionKey;
import io.sluice.queue.SqsException;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.LongConsumer;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Runs one partition on the event loop that owns it. Requests are applied in arrival order on
 * that loop; the changes of one loop turn are committed through the {@link CommitPort} in one
 * batch, and the requests that made them are answered when that commit completes. Commits of a
 * partition never overlap, so the port sees its changes in order.
 */
public final class PartitionHost {
    private static final Logger LOG = Logger.getLogger(PartitionHost.class.getName());
    /**
     * How often a replicated partition checks that it is still owned here when nothing else
     * wakes it: a partition lost (and perhaps regained) unnoticed must not serve its old memory.
     */
    static final long OWNERSHIP_CHECK_MILLIS = 20;

    private final String queueName;
    private final int index;
    /** The incarnation of the queue this partition's records belong to; its commits name it. */
    private final long incarnation;

    private final Partition state;
    private final Context loop;
    private final CommitPort port;
    private final VisibilityListener listener;
    private final Ownership ownership;

    /** Answers waiting for the next commit, and whether a flush is queued or running. */
    private List<Consumer<Throwable>> awaitingCommit = new ArrayList<>();

    private boolean flushQueued;
    private boolean committing;
    private volatile PartitionStats stats = PartitionStats.EMPTY;
    /** Set on the loop; read by the directory to drop a host that stopped serving. */
    private volatile boolean closed;
    /** Told when storage refused a commit: memory and storage may differ, so the partition is rebuilt. */
    private volatile Runnable onBroken = () -> {};

    private volatile PartitionEvents events = PartitionEvents.NONE;
    /** The loop's timer: told of the partition's next deadline after every request. Loop only. */
    private LongConsumer wakeBy = at -> {};

    PartitionHost(
            String queueName,
            int index,
            long incarnation,
            Partition state,
            Context loop,
            CommitPort port,
            VisibilityListener listener,
            Ownership ownership) {
        this.ownership = ownership;
        this.queueName = queueName;
        this.index = index;
        this.incarnation = incarnation;
        this.state = state;
        this.loop = loop;
        this.port = port;
        this.listener = listener;
        // Counts from the start: a rebuilt partition holds messages before its first request.
        publishStats();
    }

    /**
     * Runs the calls in order in one task on the partition's loop and answers them together in one
     * task on {@code replyOn} once the commit that carries their changes is done: one hop there and
     * one back whether they are one request or a forwarded bundle's requests for this partition. A
     * call whose request raised an error gets that error (after the commit, if the group changed
     * anything); one whose changes storage did not take gets the commit's failure.
     *
     * @param replyOn where the calls' futures complete; null: on the partition's loop
     */
    void executeAll(List<PartitionCall<?>> calls, Context replyOn) {
        loop.runOnContext(v -> {
            if (closed || !ownership.ownsLocally(queueName, index)) {
                // Moved away (or the queue is gone): the caller re-resolves the owner and retries.
                closed = true;
                completeOn(replyOn, calls, new PartitionMoved(queueName, index));
                return;
            }
            for (PartitionCall<?> call : calls) {
                call.run(state);
            }
            afterChange();
            long due = state.takeAddedDeadline();
            if (due != Long.MAX_VALUE) {
                wakeBy.accept(due);
            }
            whenCommitted(err -> completeOn(replyOn, calls, err));
        });
    }

    /**
     * Answers the calls on {@code context}: at once when running there already (or when there is
     * none), else as one task queued on it, so their callbacks run where the caller runs.
     */
    static void completeOn(Context context, List<PartitionCall<?>> calls, Throwable groupFailure) {
        if (context == null || Vertx.currentContext() == context) {
            calls.forEach(c -> c.complete(groupFailure));
        } else {
            context.runOnContext(v -> calls.forEach(c -> c.complete(groupFailure)));
        }
    }

    /**
     * The loop's timer fired: apply due deadlines and expiries. Runs on the loop.
     *
     * @return when this partition next needs a tick ({@link Long#MAX_VALUE}: not before a request)
     */
    long tick(long now) {
        if (closed) {
            return Long.MAX_VALUE;
        }
        if (!ownership.ownsLocally(queueName, index)) {
            // Lost, even if it comes back before the reconciler looks: memory from before another
            // owner's changes must never serve again, so the directory drops this host and a
            // later owner rebuilds from storage.
            closed = true;
            return Long.MAX_VALUE;
        }
        state.advance(now);
        afterChange();
        if (state.hasChanges()) {
            whenCommitted(err -> {});
        }
        state.takeAddedDeadline(); // covered by the full look below
        long next = state.nextDeadline();
        return port.replicates() ? Math.min(next, now + OWNERSHIP_CHECK_MILLIS) : next;
    }

    /** Attached to a loop: {@code wakeBy} arms its timer. Runs on the loop. */
    void onDeadline(LongConsumer wakeBy) {
        this.wakeBy = wakeBy;
        wakeBy.accept(0);
    }

    void events(PartitionEvents observer) {
        this.events = observer;
    }

    void onBroken(Runnable action) {
        this.onBroken = action;
    }

    /**
     * Stops serving and lets go of the partition's contents: later requests fail as for a deleted
     * queue (or go to the partition's new owner). Runs on the loop.
     */
    void close() {
        closed = true;
        state.release();
    }

    /**
     * Stops serving because the queue was deleted, and removes what the partition holds from
     * storage as well: in one more commit, after any commit under way (a partition's commits never
     * overlap), so that nothing of the deleted queue stays in the replicas, where a queue created
     * later under its name would find it. A send that got in before the deletion reached this node
     * is removed with the rest. Does nothing to a host that already stopped serving (moved away or
     * broken): it no longer writes here. Runs on the loop.
     */
    void retire() {
        if (closed) {
            return;
        }
        closed = true;
        state.erase();
        publishStats();
        whenCommitted(err -> {});
    }

    /** Whether this host stopped serving (lost, broken or closed); the directory drops it. */
    boolean isClosed() {
        return closed;
    }

    public PartitionStats stats() {
        return stats;
    }

    public String queueName() {
        return queueName;
    }

    public int index() {
        return index;
    }

    Context loop() {
        return loop;
    }

    private void publishStats() {
        stats = new PartitionStats(
                state.visibleCount(), state.inFlightCount(), state.delayedCount(), state.oldestSentTimestamp());
    }

    private void afterChange() {
        // Published before newly visible messages are announced: a long poll that skips a partition
        // whose counts show nothing visible is woken by the announcement (PartitionRouter.knownEmpty).
        publishStats();
        if (state.takeNewlyVisible() > 0) {
            listener.onVisible(queueName, index);
        }
    }

    private void whenCommitted(Consumer<Throwable> reply) {
        if (!port.replicates()) {
            // Nothing to write anywhere: the change is done once applied.
            state.discardChanges();
            reply.accept(null);
            return;
        }
        if (!state.hasChanges() && !committing && awaitingCommit.isEmpty()) {
            reply.accept(null);
            return;
        }
        awaitingCommit.add(reply);
        if (!flushQueued && !committing) {
            flushQueued = true;
            // Queued behind the requests already waiting on this loop, so one commit covers them all.
            loop.runOnContext(v -> flush());
        }
    }

    private void flush() {
        flushQueued = false;
        List<PartitionChange> changes = state.drainChanges();
        List<Consumer<Throwable>> replies = awaitingCommit;
        awaitingCommit = new ArrayList<>();
        committing = true;
        long began = System.nanoTime();
        port.commit(queueName, index, incarnation, changes)
                .whenComplete((ok, err) -> loop.runOnContext(v -> {
                    events.committed(changes.size(), System.nanoTime() - began);
                    committed(replies, err);
                }));
    }

    private void committed(List<Consumer<Throwable>> replies, Throwable commitError) {
        Throwable err = commitError;
        committing = false;
        // Nobody is told "done" for a change storage did not take: they get a retryable
        // error instead (a retried send may duplicate, which at-least-once allows).
        // Owning the partition is checked again once the write is done: a write that completed
        // after this node lost the partition (or was frozen) may not survive, so it is not acknowledged.
        Throwable failure = err == null && ownership.ownsLocally(queueName, index)
                ? null
                : new SqsException(ErrorCode.SERVICE_UNAVAILABLE, "Could not replicate the change; try again.");
        if (err == null && failure != null) {
            err = new IllegalStateException("ownership lost while committing");
        }
        if (err != null) {
            LOG.log(
                    Level.WARNING,
                    "commit of " + new PartitionKey(queueName, index) + " failed; rebuilding it from storage: "
                            + err.getMessage());
            // This partition's memory may now differ from storage, so nothing more of it is written
            // (not the requests applied since this commit began either), and the rebuild starts only
            // now that no commit of it is under way, so no late write of this one can land after the
            // rebuild has read storage.
            closed = true;
            List<Consumer<Throwable>> pending = awaitingCommit;
            awaitingCommit = new ArrayList<>();
            state.discardChanges();
            // Storage refused the commit because the partition has a new owner: none of it was
            // written, so its requests go to the new owner (the router retries a PartitionMoved)
            // instead of failing at a client in the middle of a hand-over. So do the requests applied
            // since it began, which no commit carried, whatever became of this one.
            Throwable notWritten = new PartitionMoved(queueName, index);
            Throwable committedAnswer = err instanceof PartitionMoved ? notWritten : failure;
            replies.forEach(r -> r.accept(committedAnswer));
            pending.forEach(r -> r.accept(notWritten));
            onBroken.run();
            return;
        }
        replies.forEach(r -> r.accept(failure));
        if (!awaitingCommit.isEmpty() || state.hasChanges()) {
            flushQueued = true;
            flush();
        }
    }
}
