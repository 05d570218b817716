package io.sluice.queue;

import java.util.Map;

/** One message handed to a receiver: a snapshot taken at the receive, with that receive's token. */
public record Delivery(
        String messageId,
        long receiptToken,
        String body,
        String md5OfBody,
        Map<String, MessageAttributeValue> attributes,
        Map<String, MessageAttributeValue> systemAttributes,
        long sentTimestamp,
        String senderId,
        int receiveCount,
        long firstReceiveTimestamp,
        String messageGroupId,
        String deduplicationId,
        String sequenceNumber,
        String deadLetterSourceArn) {}
