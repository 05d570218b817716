package io.sluice.server;

import io.sluice.queue.Delivery;
import io.sluice.queue.PartitionRequest;
import io.sluice.queue.QueueMeta;
import io.sluice.queue.RedrivePolicy;
import io.vertx.core.Future;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Claims messages from a queue's partitions one after the other, asking each only for what is
 * still wanted, so a receive never gets more than it asked for. Messages past the queue's
 * maxReceiveCount are sent on to its dead-letter queue on the way.
 */
final class PartitionClaims {
    private static final Logger LOG = Logger.getLogger(PartitionClaims.class.getName());
    /** How long a message being moved to the dead-letter queue stays hidden if the move fails. */
    static final long MOVE_TIMEOUT_MILLIS = 30_000;

    /** One claimed message and the partition it came from (the receipt handle names it). */
    record Claimed(int partition, Delivery delivery) {}

    private final Broker broker;
    private final MessageMover mover;

    PartitionClaims(Broker broker, MessageMover mover) {
        this.broker = broker;
        this.mover = mover;
    }

    /**
     * @param redrive whether the queue's redrive policy applies (not for a move task's own reads)
     */
    Future<List<Claimed>> claim(
            QueueMeta meta, List<Integer> partitions, int wanted, long visibilityMillis, boolean redrive) {
        List<Claimed> out = new ArrayList<>();
        if (wanted <= 0) {
            return Future.succeededFuture(out);
        }
        RedrivePolicy policy = redrive ? meta.redrivePolicy() : null;
        QueueMeta deadLetterQueue = deadLetterQueueOf(policy);
        int maxReceiveCount = deadLetterQueue == null ? 0 : policy.maxReceiveCount();
        return claimFrom(meta, partitions, 0, wanted, visibilityMillis, maxReceiveCount, deadLetterQueue, out);
    }

    long inFlight(QueueMeta meta) {
        return broker.counts(meta.name()).inFlight();
    }

    private Future<List<Claimed>> claimFrom(
            QueueMeta meta,
            List<Integer> partitions,
            int i,
            int wanted,
            long visibilityMillis,
            int maxReceiveCount,
            QueueMeta deadLetterQueue,
            List<Claimed> out) {
        if (i >= partitions.size() || out.size() >= wanted) {
            return Future.succeededFuture(out);
        }
        int p = partitions.get(i);
        PartitionRequest.Receive request = new PartitionRequest.Receive(
                wanted - out.size(), visibilityMillis, maxReceiveCount, MOVE_TIMEOUT_MILLIS);
        return broker.router.execute(meta.name(), p, request).compose(outcome -> {
            outcome.delivered().forEach(d -> out.add(new Claimed(p, d)));
            for (Delivery d : outcome.toMove()) {
                mover.toDeadLetterQueue(meta, p, d, deadLetterQueue)
                        .onFailure(err -> LOG.log(
                                Level.WARNING,
                                "moving " + d.messageId() + " to " + deadLetterQueue.name()
                                        + " failed; it comes back after " + MOVE_TIMEOUT_MILLIS + " ms",
                                err));
            }
            return claimFrom(meta, partitions, i + 1, wanted, visibilityMillis, maxReceiveCount, deadLetterQueue, out);
        });
    }

    /** The policy's dead-letter queue, or null without a policy or when that queue is gone (then nothing moves). */
    private QueueMeta deadLetterQueueOf(RedrivePolicy policy) {
        return policy == null ? null : broker.queueOfArn(policy.deadLetterTargetArn());
    }
}
