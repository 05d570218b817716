package io.sluice.server;

import io.sluice.queue.ErrorCode;
import io.sluice.queue.SqsException;
import io.vertx.core.Vertx;
import java.util.HashMap;
import java.util.Map;

/** The one table from SQS action name to the handler that serves it. */
final class Actions {
    private final Map<String, ActionHandler> handlers = new HashMap<>();

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

        handlers.put("CreateQueue", queues::createQueue);
        handlers.put("GetQueueUrl", queues::getQueueUrl);
        handlers.put("ListQueues", queues::listQueues);
        handlers.put("DeleteQueue", queues::deleteQueue);
        handlers.put("GetQueueAttributes", queues::getQueueAttributes);
        handlers.put("SetQueueAttributes", queues::setQueueAttributes);
        handlers.put("PurgeQueue", queues::purgeQueue);
        handlers.put("ListDeadLetterSourceQueues", queues::listDeadLetterSourceQueues);
        handlers.put("TagQueue", tags::tagQueue);
        handlers.put("UntagQueue", tags::untagQueue);
        handlers.put("ListQueueTags", tags::listQueueTags);
        handlers.put("AddPermission", permissions::addPermission);
        handlers.put("RemovePermission", permissions::removePermission);
        handlers.put("SendMessage", sends::sendMessage);
        handlers.put("SendMessageBatch", sends::sendMessageBatch);
        handlers.put("ReceiveMessage", receive::receiveMessage);
        handlers.put("DeleteMessage", acks::deleteMessage);
        handlers.put("DeleteMessageBatch", acks::deleteMessageBatch);
        handlers.put("ChangeMessageVisibility", acks::changeMessageVisibility);
        handlers.put("ChangeMessageVisibilityBatch", acks::changeMessageVisibilityBatch);
        handlers.put("StartMessageMoveTask", moveTasks::start);
        handlers.put("ListMessageMoveTasks", moveTasks::list);
        handlers.put("CancelMessageMoveTask", moveTasks::cancel);
    }

    ActionHandler get(String action) {
        ActionHandler h = handlers.get(action);
        if (h == null) {
            throw new SqsException(ErrorCode.INVALID_ACTION, "The action " + action + " is not valid for this endpoint.");
        }
        return h;
    }
}
