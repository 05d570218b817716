package io.sluice.protocol;

import java.util.Arrays;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * Every action SQS accepts: the one list of them. A request naming anything else is refused
 * before it reaches a handler, and the server has one handler per entry.
 */
public enum SqsAction {
    CREATE_QUEUE("CreateQueue", true),
    GET_QUEUE_URL("GetQueueUrl", true),
    LIST_QUEUES("ListQueues", true),
    DELETE_QUEUE("DeleteQueue", false),
    GET_QUEUE_ATTRIBUTES("GetQueueAttributes", true),
    SET_QUEUE_ATTRIBUTES("SetQueueAttributes", false),
    PURGE_QUEUE("PurgeQueue", false),
    LIST_DEAD_LETTER_SOURCE_QUEUES("ListDeadLetterSourceQueues", true),
    TAG_QUEUE("TagQueue", false),
    UNTAG_QUEUE("UntagQueue", false),
    LIST_QUEUE_TAGS("ListQueueTags", true),
    ADD_PERMISSION("AddPermission", false),
    REMOVE_PERMISSION("RemovePermission", false),
    SEND_MESSAGE("SendMessage", true),
    SEND_MESSAGE_BATCH("SendMessageBatch", true),
    RECEIVE_MESSAGE("ReceiveMessage", true),
    DELETE_MESSAGE("DeleteMessage", false),
    DELETE_MESSAGE_BATCH("DeleteMessageBatch", true),
    CHANGE_MESSAGE_VISIBILITY("ChangeMessageVisibility", false),
    CHANGE_MESSAGE_VISIBILITY_BATCH("ChangeMessageVisibilityBatch", true),
    START_MESSAGE_MOVE_TASK("StartMessageMoveTask", true),
    LIST_MESSAGE_MOVE_TASKS("ListMessageMoveTasks", true),
    CANCEL_MESSAGE_MOVE_TASK("CancelMessageMoveTask", true);

    private static final Map<String, SqsAction> BY_NAME =
            Arrays.stream(values()).collect(Collectors.toUnmodifiableMap(SqsAction::wireName, Function.identity()));

    private final String wireName;
    private final boolean hasOutput;

    SqsAction(String wireName, boolean hasOutput) {
        this.wireName = wireName;
        this.hasOutput = hasOutput;
    }

    /** The action as requests name it: the Query protocol's Action, the JSON protocol's X-Amz-Target after "AmazonSQS.". */
    public String wireName() {
        return wireName;
    }

    /** Whether the response has output members: the Query protocol then always writes its Result element. */
    public boolean hasOutput() {
        return hasOutput;
    }

    /** The action a request names, or null when SQS has no such action. */
    public static SqsAction named(String wireName) {
        return wireName == null ? null : BY_NAME.get(wireName);
    }
}
