package io.sluice.server;

import io.sluice.queue.Delivery;
import io.sluice.queue.FifoRules;
import io.sluice.queue.MessageRecord;
import io.sluice.queue.PartitionRequest;
import io.sluice.queue.QueueMeta;
import io.vertx.core.Future;

/**
 * Moves a received message to another queue: a dead-letter redrive, or a move task taking it
 * back. The copy is stored first and the original deleted after, so a failure in between
 * leaves a duplicate at worst, never a loss: the original stays in flight and comes back.
 * A copy always goes to the same partition of its destination (its group's on a FIFO queue,
 * else the one its id hashes to), and a partition stores a message id once, so a repeated move
 * does not store it twice while the first copy is there.
 */
final class MessageMover {
    private final Broker broker;

    MessageMover(Broker broker) {
        this.broker = broker;
    }

    Future<Void> move(QueueMeta from, int partition, Delivery original, QueueMeta to, MessageRecord copy) {
        return store(to, copy)
                .compose(stored -> deleteOriginal(from, partition, original))
                .mapEmpty();
    }

    /** Stores the copy in its destination (a copy already there is not stored again). */
    Future<Void> store(QueueMeta to, MessageRecord copy) {
        int target = to.fifo()
                ? FifoRules.partitionOf(copy.messageGroupId(), to.partitions())
                : Math.floorMod(copy.messageId().hashCode(), to.partitions());
        return broker.router
                .execute(to.name(), target, new PartitionRequest.Send(copy, 0))
                .mapEmpty();
    }

    /** Deletes the original under the receipt it was claimed with; false when that claim was over. */
    Future<Boolean> deleteOriginal(QueueMeta from, int partition, Delivery original) {
        return broker.router.execute(
                from.name(), partition, new PartitionRequest.Delete(original.messageId(), original.receiptToken()));
    }

    /** Sends a message received more than maxReceiveCount times to the source's dead-letter queue. */
    Future<Void> toDeadLetterQueue(QueueMeta source, int partition, Delivery d, QueueMeta deadLetterQueue) {
        MessageRecord copy =
                MessageRecord.deadLettered(d, broker.urls.arn(source.name()), source.fifo(), broker.clock.millis());
        return move(source, partition, d, deadLetterQueue, copy);
    }
}
