package io.sluice.queue;

import java.nio.ByteBuffer;
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
    /**
     * The body's MD5 as two longs rather than its 32-character hex String: 64 fewer heap bytes and
     * two fewer objects for every stored message (a 256-byte message took 622). Formatted on use.
     */
    final long md5OfBodyHigh;

    final long md5OfBodyLow;
    final String md5OfAttributes;
    final String md5OfSystemAttributes;
    final long sentTimestamp;
    final String senderId;
    /** FIFO fields, null on standard queues. */
    final String messageGroupId;

    final String deduplicationId;
    /** FIFO: assigned by the partition when the message is stored. */
    String sequenceNumber;
    /** The queue a dead-letter queue's message was moved from, for DeadLetterQueueSourceArn and move tasks. */
    final String deadLetterSourceArn;

    MessageState state;
    long visibleAt;
    int receiveCount;
    long firstReceiveTimestamp;
    /** When the current receive happened: the 12-hour visibility cap counts from it. */
    long receivedAt;
    /** Changes with every receive, so that an old receipt handle can be told from the current one. */
    long receiptToken;
    /** Its slot in the partition's {@link DeadlineHeap} while a delay or visibility timeout is pending; else -1. */
    int deadlineSlot = -1;

    boolean removed;

    public MessageRecord(
            String messageId,
            String body,
            Map<String, MessageAttributeValue> attributes,
            Map<String, MessageAttributeValue> systemAttributes,
            long sentTimestamp,
            String senderId,
            String messageGroupId,
            String deduplicationId,
            String deadLetterSourceArn) {
        this.messageId = messageId;
        this.body = body;
        this.attributes = Map.copyOf(attributes);
        this.systemAttributes = Map.copyOf(systemAttributes);
        ByteBuffer md5 = Md5.bodyDigest(body);
        this.md5OfBodyHigh = md5.getLong();
        this.md5OfBodyLow = md5.getLong();
        this.md5OfAttributes = Md5.ofAttributes(attributes);
        this.md5OfSystemAttributes = Md5.ofAttributes(systemAttributes);
        this.sentTimestamp = sentTimestamp;
        this.senderId = senderId;
        this.messageGroupId = messageGroupId;
        this.deduplicationId = deduplicationId;
        this.deadLetterSourceArn = deadLetterSourceArn;
    }

    /** What {@code sent} carries, none of what a partition did with it. */
    private MessageRecord(MessageRecord sent) {
        this.messageId = sent.messageId;
        this.body = sent.body;
        this.attributes = sent.attributes;
        this.systemAttributes = sent.systemAttributes;
        this.md5OfBodyHigh = sent.md5OfBodyHigh;
        this.md5OfBodyLow = sent.md5OfBodyLow;
        this.md5OfAttributes = sent.md5OfAttributes;
        this.md5OfSystemAttributes = sent.md5OfSystemAttributes;
        this.sentTimestamp = sent.sentTimestamp;
        this.senderId = sent.senderId;
        this.messageGroupId = sent.messageGroupId;
        this.deduplicationId = sent.deduplicationId;
        this.deadLetterSourceArn = sent.deadLetterSourceArn;
        this.receiveCount = sent.receiveCount;
        this.firstReceiveTimestamp = sent.firstReceiveTimestamp;
    }

    /**
     * The record a partition stores for a send of this one: the same message (with the receive
     * count a moved copy starts with) and fresh partition state. A send request may be applied
     * more than once (again, at the owner, after a commit that wrote nothing), and nothing a
     * partition whose memory was thrown away did to the record may come back with it.
     */
    MessageRecord toStore() {
        return new MessageRecord(this);
    }

    /**
     * The copy of a delivered message that is moved to another queue: same id, body, attributes
     * and sent time (retention keeps counting from the original send).
     *
     * @param receiveCount the count the copy starts with
     */
    public static MessageRecord movedCopy(Delivery d, String sourceArn, int receiveCount) {
        return copy(d, sourceArn, receiveCount, d.sentTimestamp(), d.deduplicationId());
    }

    /**
     * The copy a redrive policy puts in the dead-letter queue, carrying the source's ARN and the
     * receive count. As in SQS, a standard queue's message keeps its enqueue timestamp (its
     * retention in the DLQ still counts from the original send), while a FIFO queue's message is
     * enqueued anew at {@code now}, and its deduplication id becomes its message id, so that two
     * messages that happened to share a deduplication id are both kept in the DLQ.
     */
    public static MessageRecord deadLettered(Delivery d, String sourceArn, boolean fifo, long now) {
        return fifo
                ? copy(d, sourceArn, d.receiveCount(), now, d.messageId())
                : copy(d, sourceArn, d.receiveCount(), d.sentTimestamp(), d.deduplicationId());
    }

    /**
     * The copy a message move task takes out of a dead-letter queue: as in SQS, a redriven
     * message is enqueued anew at {@code now} (its SentTimestamp, and its retention, restart),
     * standard or FIFO, and it starts with receive count 0 so that it is not sent straight back.
     */
    public static MessageRecord redriven(Delivery d, long now) {
        return copy(d, null, 0, now, d.deduplicationId());
    }

    private static MessageRecord copy(
            Delivery d, String sourceArn, int receiveCount, long sentTimestamp, String deduplicationId) {
        MessageRecord r = new MessageRecord(
                d.messageId(),
                d.body(),
                d.attributes(),
                d.systemAttributes(),
                sentTimestamp,
                d.senderId(),
                d.messageGroupId(),
                deduplicationId,
                sourceArn);
        r.receiveCount = receiveCount;
        r.firstReceiveTimestamp = receiveCount == 0 ? 0 : d.firstReceiveTimestamp();
        return r;
    }

    /** The same message under another id: a FIFO send stored under the id its deduplication reserved. */
    public MessageRecord withMessageId(String id) {
        return new MessageRecord(
                id,
                body,
                attributes,
                systemAttributes,
                sentTimestamp,
                senderId,
                messageGroupId,
                deduplicationId,
                deadLetterSourceArn);
    }

    public String messageId() {
        return messageId;
    }

    public String md5OfBody() {
        return Md5.hex(md5OfBodyHigh, md5OfBodyLow);
    }

    public String md5OfAttributes() {
        return md5OfAttributes;
    }

    public String md5OfSystemAttributes() {
        return md5OfSystemAttributes;
    }

    public String messageGroupId() {
        return messageGroupId;
    }

    public String sequenceNumber() {
        return sequenceNumber;
    }

    public MessageState state() {
        return state;
    }

    public long visibleAt() {
        return visibleAt;
    }

    public int receiveCount() {
        return receiveCount;
    }

    /** The whole state, for replication. */
    public StoredMessage snapshot() {
        return new StoredMessage(
                messageId,
                body,
                attributes,
                systemAttributes,
                sentTimestamp,
                senderId,
                messageGroupId,
                deduplicationId,
                sequenceNumber,
                deadLetterSourceArn,
                state,
                visibleAt,
                receiveCount,
                firstReceiveTimestamp,
                receivedAt,
                receiptToken);
    }

    /** Its delivery state alone, for a replica that already holds the rest ({@link #snapshot()}). */
    public DeliveryState deliveryState() {
        return new DeliveryState(state, visibleAt, receiveCount, firstReceiveTimestamp, receivedAt, receiptToken);
    }

    /** A record rebuilt from its replica, in the state it was committed in. */
    public static MessageRecord restore(StoredMessage s) {
        MessageRecord r = new MessageRecord(
                s.messageId(),
                s.body(),
                s.attributes(),
                s.systemAttributes(),
                s.sentTimestamp(),
                s.senderId(),
                s.messageGroupId(),
                s.deduplicationId(),
                s.deadLetterSourceArn());
        r.sequenceNumber = s.sequenceNumber();
        r.state = s.state();
        r.visibleAt = s.visibleAt();
        r.receiveCount = s.receiveCount();
        r.firstReceiveTimestamp = s.firstReceiveTimestamp();
        r.receivedAt = s.receivedAt();
        r.receiptToken = s.receiptToken();
        return r;
    }

    /** An immutable copy of what a receiver is given, safe to hand to another thread. */
    Delivery deliver() {
        return new Delivery(
                messageId,
                receiptToken,
                body,
                md5OfBody(),
                attributes,
                systemAttributes,
                sentTimestamp,
                senderId,
                receiveCount,
                firstReceiveTimestamp,
                messageGroupId,
                deduplicationId,
                sequenceNumber,
                deadLetterSourceArn);
    }
}
