package io.sluice.server;

import io.sluice.protocol.SqsAction;
import io.vertx.core.Vertx;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;

/** The one table from SQS action to the handler that serves it: every action has one. */
final class Actions {
    private final Map<SqsAction, ActionHandler> handlers = new EnumMap<>(SqsAction.class);

    Actions(Broker broker, Vertx vertx) {
        QueueActions queues = new QueueActions(broker);
        TagActions tags = new TagActions(broker);
        PermissionActions permissions = new PermissionActions(broker);
        SendActions sends = new SendActions(broker);
        MessageMover mover = new MessageMover(broker);
        PartitionClaims claims = new PartitionClaims(broker, mover);
        ReceiveAction receive = new ReceiveAction(broker, vertx, claims);
        MessageMoveTasks moveTasks = broker.moveTasks(() -> new MessageMoveTasks(broker, mover, claims, vertx));
        AcknowledgeActions acks = new AcknowledgeActions(broker);

        handlers.put(SqsAction.CREATE_QUEUE, queues::createQueue);
        handlers.put(SqsAction.GET_QUEUE_URL, queues::getQueueUrl);
        handlers.put(SqsAction.LIST_QUEUES, queues::listQueues);
        handlers.put(SqsAction.DELETE_QUEUE, queues::deleteQueue);
        handlers.put(SqsAction.GET_QUEUE_ATTRIBUTES, queues::getQueueAttributes);
        handlers.put(SqsAction.SET_QUEUE_ATTRIBUTES, queues::setQueueAttributes);
        handlers.put(SqsAction.PURGE_QUEUE, queues::purgeQueue);
        handlers.put(SqsAction.LIST_DEAD_LETTER_SOURCE_QUEUES, queues::listDeadLetterSourceQueues);
        handlers.put(SqsAction.TAG_QUEUE, tags::tagQueue);
        handlers.put(SqsAction.UNTAG_QUEUE, tags::untagQueue);
        handlers.put(SqsAction.LIST_QUEUE_TAGS, tags::listQueueTags);
        handlers.put(SqsAction.ADD_PERMISSION, permissions::addPermission);
        handlers.put(SqsAction.REMOVE_PERMISSION, permissions::removePermission);
        handlers.put(SqsAction.SEND_MESSAGE, sends::sendMessage);
        handlers.put(SqsAction.SEND_MESSAGE_BATCH, sends::sendMessageBatch);
        handlers.put(SqsAction.RECEIVE_MESSAGE, receive::receiveMessage);
        handlers.put(SqsAction.DELETE_MESSAGE, acks::deleteMessage);
        handlers.put(SqsAction.DELETE_MESSAGE_BATCH, acks::deleteMessageBatch);
        handlers.put(SqsAction.CHANGE_MESSAGE_VISIBILITY, acks::changeMessageVisibility);
        handlers.put(SqsAction.CHANGE_MESSAGE_VISIBILITY_BATCH, acks::changeMessageVisibilityBatch);
        handlers.put(SqsAction.START_MESSAGE_MOVE_TASK, moveTasks::start);
        handlers.put(SqsAction.LIST_MESSAGE_MOVE_TASKS, moveTasks::list);
        handlers.put(SqsAction.CANCEL_MESSAGE_MOVE_TASK, moveTasks::cancel);

        Set<SqsAction> unserved = EnumSet.complementOf(EnumSet.copyOf(handlers.keySet()));
        if (!unserved.isEmpty()) {
            throw new IllegalStateException("no handler for " + unserved);
        }
    }

    ActionHandler get(SqsAction action) {
        return handlers.get(action);
    }
}
