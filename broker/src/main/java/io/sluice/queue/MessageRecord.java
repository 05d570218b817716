package io.sluice.queue;

import java.util.Map;

/**
 * A message as a partition stores it. The immutable part is what was sent; the mutable part
 * (state, visibleAt, receive count, current receipt token) belongs to the partition that holds
 * the record and is only touched on that partition's loop.
 *
 * <p>The record carries when it becomes visible, so a replica can rebuild the timers from it.
 */
public final class MessageRecord {
    final String messageId;
    final String body;
    final Map<String, MessageAttributeValue> attributes;
    final Map<String, MessageAttributeValue> systemAttributes;
    final String md5OfBody;
    final String md5OfAttributes;
    final String md5OfSystemAttributes;
    final long sentTimestamp;
    final String senderId;
    /** FIFO fields, null on standard queues. */
    final String messageGroupId;
    final String deduplicationId;
    final String sequenceNumber;

    MessageState state;
    long visibleAt;
    int receiveCount;
    long firstReceiveTimestamp;
    /** When the current receive happened: the 12-hour visibility cap counts from it. */
    long receivedAt;
    /** Changes with every receive, so that an old receipt handle can be told from the current one. */
    long receiptToken;
    /** Bumped whenever a deadline is set, so that superseded deadlines in the heap are skipped. */
    int deadlineVersion;
    boolean removed;

    public MessageRecord(String messageId, String body,
                         Map<String, MessageAttributeValue> attributes,
                         Map<String, MessageAttributeValue> systemAttributes,
                         long sentTimestamp, String senderId,
                         String messageGroupId, String deduplicationId, String sequenceNumber) {
        this.messageId = messageId;
        this.body = body;
        this.attributes = Map.copyOf(attributes);
        this.systemAttributes = Map.copyOf(systemAttributes);
        this.md5OfBody = Md5.ofBody(body);
        this.md5OfAttributes = Md5.ofAttributes(attributes);
        this.md5OfSystemAttributes = Md5.ofAttributes(systemAttributes);
        this.sentTimestamp = sentTimestamp;
        this.senderId = senderId;
        this.messageGroupId = messageGroupId;
        this.deduplicationId = deduplicationId;
        this.sequenceNumber = sequenceNumber;
    }

    public String messageId() { return messageId; }
    public String md5OfBody() { return md5OfBody; }
    public String md5OfAttributes() { return md5OfAttributes; }
    public String md5OfSystemAttributes() { return md5OfSystemAttributes; }
    public MessageState state() { return state; }
    public long visibleAt() { return visibleAt; }
    public int receiveCount() { return receiveCount; }

    /** An immutable copy of what a receiver is given, safe to hand to another thread. */
    Delivery deliver() {
        return new Delivery(messageId, receiptToken, body, md5OfBody, attributes, systemAttributes,
                sentTimestamp, senderId, receiveCount, firstReceiveTimestamp,
                messageGroupId, deduplicationId, sequenceNumber);
    }
}
