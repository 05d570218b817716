package io.sluice.queue;

import java.util.Map;

/**
 * Everything a partition knows of one message, as an immutable value: what replication writes
 * and what a new owner rebuilds the partition from (visibility and delay deadlines included,
 * since {@code visibleAt} says when it becomes visible).
 */
public record StoredMessage(
        String messageId,
        String body,
        Map<String, MessageAttributeValue> attributes,
        Map<String, MessageAttributeValue> systemAttributes,
        long sentTimestamp,
        String senderId,
        String messageGroupId,
        String deduplicationId,
        String sequenceNumber,
        String deadLetterSourceArn,
        MessageState state,
        long visibleAt,
        int receiveCount,
        long firstReceiveTimestamp,
        long receivedAt,
        long receiptToken) {}
