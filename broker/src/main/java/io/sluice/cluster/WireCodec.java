package io.sluice.cluster;

import io.sluice.queue.AttemptRef;
import io.sluice.queue.DedupEntry;
import io.sluice.queue.Delivery;
import io.sluice.queue.ErrorCode;
import io.sluice.queue.MessageAttributeValue;
import io.sluice.queue.MessageRecord;
import io.sluice.queue.MessageState;
import io.sluice.queue.PartitionRequest;
import io.sluice.queue.QueueMeta;
import io.sluice.queue.ReceiveOutcome;
import io.sluice.queue.RedrivePolicy;
import io.sluice.queue.SendOutcome;
import io.sluice.queue.SqsException;
import io.sluice.queue.StoredMessage;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;
import java.util.function.Function;

/**
 * The cluster's binary encoding of queue metadata and of what one node asks another's
 * partitions: partition requests and their replies (partition state itself travels in the
 * partition store's Hazelcast serialization). No reflection, no Java serialization.
 *
 * <h2>Layout</h2>
 * Every encoded value starts with two bytes: the format version ({@link #FORMAT}) and a kind
 * byte naming what follows (queue meta, request, reply), so a
 * value decoded as the wrong thing, or written by an unknown format, is refused. Fields follow
 * in declaration order, big-endian:
 * <ul>
 *   <li>int, long: 4 and 8 bytes; boolean: one byte 0/1;</li>
 *   <li>string: int length of its UTF-8 bytes, then the bytes; length -1 for null;</li>
 *   <li>byte[]: int length then the bytes, -1 for null;</li>
 *   <li>map: int count (-1 for null), then key and value per entry; list: int count (-1 for
 *       null), then the elements;</li>
 *   <li>enum: one byte ordinal, -1 for null ({@link ErrorCode} alone goes by name, as errors
 *       are rare and names survive a reordering).</li>
 * </ul>
 *
 * <h2>Requests</h2>
 * {@link #encodeRequest} wraps a {@link PartitionRequest} in an {@link Envelope} naming the
 * queue and partition index; after those comes a tag byte for the request's type, then its
 * fields. A {@code Send} carries its message as {@link MessageRecord#snapshot()} and is rebuilt
 * with {@link MessageRecord#restore}.
 *
 * <h2>Replies</h2>
 * A {@link Reply} is one of:
 * <ul>
 *   <li>{@link Reply.Kind#RESULT}: what {@code applyTo} returned. A tag byte tells the type:
 *       null (also {@code Void}), {@link Boolean}, {@link SendOutcome}, {@link ReceiveOutcome},
 *       {@link DedupEntry}, {@code List<AttemptRef>}, {@link Delivery};</li>
 *   <li>{@link Reply.Kind#ERROR}: the request failed with an {@link SqsException}, carried as
 *       its error code's name and its message;</li>
 *   <li>{@link Reply.Kind#MOVED}: the receiving node does not own that partition (any more):
 *       the sender should look up the owner again and retry there;</li>
 *   <li>{@link Reply.Kind#REBUILDING}: the receiving node owns the partition but is still
 *       loading it: the sender should retry a little later.</li>
 * </ul>
 *
 * <h2>Decoding</h2>
 * Decoding is strict: a truncated, over-long or garbage input throws
 * {@link IllegalArgumentException}. Every length and count is checked against the bytes left
 * before anything is allocated, so garbage cannot make it loop or allocate without bound.
 * Decoded maps and lists are unmodifiable and keep the encoded order; null fields come back
 * null, empty maps and lists come back empty.
 */
public final class WireCodec {

    /**
     * The format version, the first byte of every encoded value. 2: queue metadata ends with its
     * redrive policy (a presence byte, then the target ARN and maxReceiveCount).
     */
    public static final byte FORMAT = 2;

    // Kinds: the second byte.
    // 1-3 were stored messages, deduplication records and receive attempts (now the partition store's).
    private static final byte K_META = 4;
    private static final byte K_REQUEST = 5;
    private static final byte K_REPLY = 6;

    // Request types.
    private static final byte R_SEND = 1;
    private static final byte R_RECEIVE = 2;
    private static final byte R_DELETE = 3;
    private static final byte R_CHANGE_VISIBILITY = 4;
    private static final byte R_PURGE = 5;
    private static final byte R_RESERVE_DEDUP = 6;
    private static final byte R_CONFIRM_DEDUP = 7;
    private static final byte R_REMEMBER_ATTEMPT = 8;
    private static final byte R_RECALL_ATTEMPT = 9;
    private static final byte R_REDELIVER = 10;

    // Result types, after a RESULT reply's kind.
    private static final byte T_NULL = 0;
    private static final byte T_BOOLEAN = 1;
    private static final byte T_SEND_OUTCOME = 2;
    private static final byte T_RECEIVE_OUTCOME = 3;
    private static final byte T_DEDUP_ENTRY = 4;
    private static final byte T_ATTEMPT_REFS = 5;
    private static final byte T_DELIVERY = 6;

    private static final MessageState[] STATES = MessageState.values();
    private static final Reply.Kind[] REPLY_KINDS = Reply.Kind.values();

    private WireCodec() {}

    /** A partition request addressed to one partition of one queue. */
    public record Envelope(String queueName, int partition, PartitionRequest<?> request) {}

    /**
     * What a node answers a request with; see the class comment.
     *
     * @param value the result for {@link Kind#RESULT} (may be null), the {@link SqsException}
     *              for {@link Kind#ERROR}, null otherwise
     */
    public record Reply(Kind kind, Object value) {
        public enum Kind {
            RESULT,
            ERROR,
            MOVED,
            REBUILDING
        }

        private static final Reply MOVED = new Reply(Kind.MOVED, null);
        private static final Reply REBUILDING = new Reply(Kind.REBUILDING, null);

        public Reply {
            if (kind == null) {
                throw new IllegalArgumentException("reply kind is null");
            }
            if (kind == Kind.ERROR && !(value instanceof SqsException)) {
                throw new IllegalArgumentException("an error reply carries an SqsException");
            }
            if ((kind == Kind.MOVED || kind == Kind.REBUILDING) && value != null) {
                throw new IllegalArgumentException(kind + " carries no value");
            }
        }

        public static Reply result(Object value) {
            return new Reply(Kind.RESULT, value);
        }

        public static Reply error(SqsException e) {
            return new Reply(Kind.ERROR, e);
        }

        public static Reply moved() {
            return MOVED;
        }

        public static Reply rebuilding() {
            return REBUILDING;
        }

        /**
         * The result of a RESULT reply; throws the SqsException of an ERROR reply, and
         * IllegalStateException for MOVED and REBUILDING (which the router handles itself).
         */
        public Object get() {
            switch (kind) {
                case RESULT:
                    return value;
                case ERROR:
                    throw (SqsException) value;
                default:
                    throw new IllegalStateException("reply is " + kind);
            }
        }
    }

    // ---------------------------------------------------------------- queue metadata

    /**
     * Reads one value of {@code kind} with {@code read}, strictly: anything that goes wrong, and
     * bytes left over, is an {@link IllegalArgumentException} naming {@code what}.
     */
    private static <T> T decode(byte[] bytes, byte kind, String what, Function<Reader, T> read) {
        Reader r = new Reader(bytes, kind, what);
        try {
            return r.end(read.apply(r));
        } catch (IllegalArgumentException e) {
            throw e;
        } catch (RuntimeException e) {
            throw r.malformed(e);
        }
    }

    public static byte[] encodeQueueMeta(QueueMeta q) {
        Writer w = new Writer(K_META, 256);
        w.putString(q.name());
        w.putBoolean(q.fifo());
        w.putInt(q.partitions());
        w.putLong(q.createdMillis());
        w.putLong(q.lastModifiedMillis());
        writeStringMap(w, q.attributes());
        writeStringMap(w, q.tags());
        w.putLong(q.purgedAt());
        RedrivePolicy redrive = q.redrivePolicy();
        w.putBoolean(redrive != null);
        if (redrive != null) {
            w.putString(redrive.deadLetterTargetArn());
            w.putInt(redrive.maxReceiveCount());
        }
        return w.toArray();
    }

    public static QueueMeta decodeQueueMeta(byte[] bytes) {
        return decode(bytes, K_META, "queue meta", r -> {
            String name = r.getString();
            boolean fifo = r.getBoolean();
            int partitions = r.getInt();
            long created = r.getLong();
            long modified = r.getLong();
            Map<String, String> attributes = readStringMap(r);
            Map<String, String> tags = readStringMap(r);
            long purgedAt = r.getLong();
            RedrivePolicy redrive = r.getBoolean() ? new RedrivePolicy(r.getString(), r.getInt()) : null;
            return new QueueMeta(name, fifo, partitions, created, modified, attributes, tags, purgedAt, redrive);
        });
    }

    // ---------------------------------------------------------------- requests

    public static byte[] encodeRequest(String queueName, int partition, PartitionRequest<?> request) {
        Writer w = new Writer(K_REQUEST, 128);
        w.putString(queueName);
        w.putInt(partition);
        if (request instanceof PartitionRequest.Send s) {
            w.putByte(R_SEND);
            writeMessage(w, s.message().snapshot());
            w.putLong(s.delayMillis());
            w.putString(s.dedupKey());
        } else if (request instanceof PartitionRequest.Receive rc) {
            w.putByte(R_RECEIVE);
            w.putInt(rc.max());
            w.putLong(rc.visibilityMillis());
            w.putInt(rc.maxReceiveCount());
            w.putLong(rc.moveMillis());
        } else if (request instanceof PartitionRequest.Delete d) {
            w.putByte(R_DELETE);
            w.putString(d.messageId());
            w.putLong(d.token());
        } else if (request instanceof PartitionRequest.ChangeVisibility c) {
            w.putByte(R_CHANGE_VISIBILITY);
            w.putString(c.messageId());
            w.putLong(c.token());
            w.putLong(c.timeoutMillis());
            w.putString(c.receiptHandle());
        } else if (request instanceof PartitionRequest.Purge) {
            w.putByte(R_PURGE);
        } else if (request instanceof PartitionRequest.ReserveDedup rd) {
            w.putByte(R_RESERVE_DEDUP);
            w.putString(rd.key());
            w.putString(rd.messageId());
        } else if (request instanceof PartitionRequest.ConfirmDedup cd) {
            w.putByte(R_CONFIRM_DEDUP);
            w.putString(cd.key());
            w.putString(cd.messageId());
            w.putString(cd.sequenceNumber());
        } else if (request instanceof PartitionRequest.RememberAttempt ra) {
            w.putByte(R_REMEMBER_ATTEMPT);
            w.putString(ra.attemptId());
            writeRefs(w, ra.refs());
        } else if (request instanceof PartitionRequest.RecallAttempt rca) {
            w.putByte(R_RECALL_ATTEMPT);
            w.putString(rca.attemptId());
        } else if (request instanceof PartitionRequest.Redeliver rd) {
            w.putByte(R_REDELIVER);
            w.putString(rd.messageId());
            w.putLong(rd.token());
        } else {
            throw new IllegalArgumentException("cannot encode request " + request);
        }
        return w.toArray();
    }

    public static Envelope decodeRequest(byte[] bytes) {
        return decode(bytes, K_REQUEST, "request", r -> {
            String queueName = r.getString();
            int partition = r.getInt();
            byte type = r.getByte();
            PartitionRequest<?> request = switch (type) {
                case R_SEND ->
                    new PartitionRequest.Send(MessageRecord.restore(readMessage(r)), r.getLong(), r.getString());
                case R_RECEIVE -> new PartitionRequest.Receive(r.getInt(), r.getLong(), r.getInt(), r.getLong());
                case R_DELETE -> new PartitionRequest.Delete(r.getString(), r.getLong());
                case R_CHANGE_VISIBILITY ->
                    new PartitionRequest.ChangeVisibility(r.getString(), r.getLong(), r.getLong(), r.getString());
                case R_PURGE -> new PartitionRequest.Purge();
                case R_RESERVE_DEDUP -> new PartitionRequest.ReserveDedup(r.getString(), r.getString());
                case R_CONFIRM_DEDUP -> new PartitionRequest.ConfirmDedup(r.getString(), r.getString(), r.getString());
                case R_REMEMBER_ATTEMPT -> new PartitionRequest.RememberAttempt(r.getString(), readRefs(r));
                case R_RECALL_ATTEMPT -> new PartitionRequest.RecallAttempt(r.getString());
                case R_REDELIVER -> new PartitionRequest.Redeliver(r.getString(), r.getLong());
                default -> throw r.bad("unknown request type " + type);
            };
            return new Envelope(queueName, partition, request);
        });
    }

    // ---------------------------------------------------------------- replies

    /** A RESULT reply: null, Boolean, SendOutcome, ReceiveOutcome, DedupEntry, List&lt;AttemptRef&gt; or Delivery. */
    public static byte[] encodeResult(Object result) {
        return encodeReply(Reply.result(result));
    }

    public static byte[] encodeError(SqsException e) {
        return encodeReply(Reply.error(e));
    }

    public static byte[] encodeMoved() {
        return encodeReply(Reply.moved());
    }

    public static byte[] encodeRebuilding() {
        return encodeReply(Reply.rebuilding());
    }

    public static byte[] encodeReply(Reply reply) {
        Writer w = new Writer(K_REPLY, 128);
        w.putByte((byte) reply.kind().ordinal());
        switch (reply.kind()) {
            case RESULT -> writeResult(w, reply.value());
            case ERROR -> {
                SqsException e = (SqsException) reply.value();
                w.putString(e.code() == null ? null : e.code().name());
                w.putString(e.getMessage());
            }
            default -> {}
        }
        return w.toArray();
    }

    public static Reply decodeReply(byte[] bytes) {
        return decode(bytes, K_REPLY, "reply", r -> {
            byte k = r.getByte();
            if (k < 0 || k >= REPLY_KINDS.length) {
                throw r.bad("unknown reply kind " + k);
            }
            return switch (REPLY_KINDS[k]) {
                case RESULT -> Reply.result(readResult(r));
                case ERROR -> Reply.error(new SqsException(errorCode(r, r.getString()), r.getString()));
                case MOVED -> Reply.moved();
                case REBUILDING -> Reply.rebuilding();
            };
        });
    }

    /** {@code decodeReply(bytes).get()}: the result, or the error thrown; see {@link Reply#get()}. */
    public static Object decodeResult(byte[] bytes) {
        return decodeReply(bytes).get();
    }

    private static ErrorCode errorCode(Reader r, String name) {
        if (name == null) {
            return null;
        }
        try {
            return ErrorCode.valueOf(name);
        } catch (IllegalArgumentException e) {
            throw r.bad("unknown error code " + name);
        }
    }

    private static void writeResult(Writer w, Object v) {
        if (v == null) {
            w.putByte(T_NULL);
        } else if (v instanceof Boolean b) {
            w.putByte(T_BOOLEAN);
            w.putBoolean(b);
        } else if (v instanceof SendOutcome s) {
            w.putByte(T_SEND_OUTCOME);
            w.putString(s.messageId());
            w.putString(s.sequenceNumber());
            w.putBoolean(s.duplicate());
        } else if (v instanceof ReceiveOutcome o) {
            w.putByte(T_RECEIVE_OUTCOME);
            writeDeliveries(w, o.delivered());
            writeDeliveries(w, o.toMove());
        } else if (v instanceof DedupEntry d) {
            w.putByte(T_DEDUP_ENTRY);
            writeDedup(w, d);
        } else if (v instanceof List<?> list) {
            for (Object o : list) {
                if (!(o instanceof AttemptRef)) {
                    throw new IllegalArgumentException("cannot encode list element " + o);
                }
            }
            w.putByte(T_ATTEMPT_REFS);
            @SuppressWarnings("unchecked")
            List<AttemptRef> refs = (List<AttemptRef>) list;
            writeRefs(w, refs);
        } else if (v instanceof Delivery d) {
            w.putByte(T_DELIVERY);
            writeDelivery(w, d);
        } else {
            throw new IllegalArgumentException(
                    "cannot encode result of type " + v.getClass().getName());
        }
    }

    private static Object readResult(Reader r) {
        byte t = r.getByte();
        return switch (t) {
            case T_NULL -> null;
            case T_BOOLEAN -> r.getBoolean();
            case T_SEND_OUTCOME -> new SendOutcome(r.getString(), r.getString(), r.getBoolean());
            case T_RECEIVE_OUTCOME -> new ReceiveOutcome(readDeliveries(r), readDeliveries(r));
            case T_DEDUP_ENTRY -> readDedup(r);
            case T_ATTEMPT_REFS -> readRefs(r);
            case T_DELIVERY -> readDelivery(r);
            default -> throw r.bad("unknown result type " + t);
        };
    }

    // ---------------------------------------------------------------- fields

    private static void writeMessage(Writer w, StoredMessage m) {
        w.putString(m.messageId());
        w.putString(m.body());
        writeAttributes(w, m.attributes());
        writeAttributes(w, m.systemAttributes());
        w.putLong(m.sentTimestamp());
        w.putString(m.senderId());
        w.putString(m.messageGroupId());
        w.putString(m.deduplicationId());
        w.putString(m.sequenceNumber());
        w.putString(m.deadLetterSourceArn());
        w.putByte(m.state() == null ? -1 : (byte) m.state().ordinal());
        w.putLong(m.visibleAt());
        w.putInt(m.receiveCount());
        w.putLong(m.firstReceiveTimestamp());
        w.putLong(m.receivedAt());
        w.putLong(m.receiptToken());
    }

    private static StoredMessage readMessage(Reader r) {
        String messageId = r.getString();
        String body = r.getString();
        Map<String, MessageAttributeValue> attributes = readAttributes(r);
        Map<String, MessageAttributeValue> systemAttributes = readAttributes(r);
        long sentTimestamp = r.getLong();
        String senderId = r.getString();
        String groupId = r.getString();
        String dedupId = r.getString();
        String sequenceNumber = r.getString();
        String sourceArn = r.getString();
        byte s = r.getByte();
        if (s < -1 || s >= STATES.length) {
            throw r.bad("unknown message state " + s);
        }
        MessageState state = s == -1 ? null : STATES[s];
        return new StoredMessage(
                messageId,
                body,
                attributes,
                systemAttributes,
                sentTimestamp,
                senderId,
                groupId,
                dedupId,
                sequenceNumber,
                sourceArn,
                state,
                r.getLong(),
                r.getInt(),
                r.getLong(),
                r.getLong(),
                r.getLong());
    }

    private static void writeDelivery(Writer w, Delivery d) {
        w.putString(d.messageId());
        w.putLong(d.receiptToken());
        w.putString(d.body());
        w.putString(d.md5OfBody());
        writeAttributes(w, d.attributes());
        writeAttributes(w, d.systemAttributes());
        w.putLong(d.sentTimestamp());
        w.putString(d.senderId());
        w.putInt(d.receiveCount());
        w.putLong(d.firstReceiveTimestamp());
        w.putString(d.messageGroupId());
        w.putString(d.deduplicationId());
        w.putString(d.sequenceNumber());
        w.putString(d.deadLetterSourceArn());
    }

    private static Delivery readDelivery(Reader r) {
        return new Delivery(
                r.getString(),
                r.getLong(),
                r.getString(),
                r.getString(),
                readAttributes(r),
                readAttributes(r),
                r.getLong(),
                r.getString(),
                r.getInt(),
                r.getLong(),
                r.getString(),
                r.getString(),
                r.getString(),
                r.getString());
    }

    private static void writeDeliveries(Writer w, List<Delivery> list) {
        writeList(w, list, WireCodec::writeDelivery);
    }

    private static List<Delivery> readDeliveries(Reader r) {
        // A delivery is at least 8 strings and 2 maps (4 bytes each), 3 longs and an int.
        return readList(r, 10 * 4 + 3 * 8 + 4, WireCodec::readDelivery);
    }

    private static void writeDedup(Writer w, DedupEntry d) {
        w.putString(d.messageId());
        w.putString(d.sequenceNumber());
        w.putLong(d.expiresAt());
    }

    private static DedupEntry readDedup(Reader r) {
        return new DedupEntry(r.getString(), r.getString(), r.getLong());
    }

    private static void writeRefs(Writer w, List<AttemptRef> refs) {
        writeList(w, refs, (out, ref) -> {
            out.putInt(ref.partition());
            out.putString(ref.messageId());
            out.putLong(ref.token());
        });
    }

    private static List<AttemptRef> readRefs(Reader r) {
        return readList(r, 4 + 4 + 8, in -> new AttemptRef(in.getInt(), in.getString(), in.getLong()));
    }

    private static void writeAttributes(Writer w, Map<String, MessageAttributeValue> map) {
        writeMap(w, map, (out, v) -> {
            if (v == null) {
                out.putByte(0);
            } else {
                out.putByte(1);
                out.putString(v.dataType());
                out.putString(v.stringValue());
                out.putBytes(v.binaryValue());
            }
        });
    }

    private static Map<String, MessageAttributeValue> readAttributes(Reader r) {
        return readMap(r, 1, in -> {
            byte present = in.getByte();
            if (present == 0) {
                return null;
            }
            if (present == 1) {
                return new MessageAttributeValue(in.getString(), in.getString(), in.getBytes());
            }
            throw in.bad("bad attribute presence byte " + present);
        });
    }

    private static void writeStringMap(Writer w, Map<String, String> map) {
        writeMap(w, map, Writer::putString);
    }

    private static Map<String, String> readStringMap(Reader r) {
        return readMap(r, 4, Reader::getString);
    }

    /** A list: its count (-1 for null), then each element. */
    private static <T> void writeList(Writer w, List<T> list, BiConsumer<Writer, T> element) {
        if (list == null) {
            w.putInt(-1);
            return;
        }
        w.putInt(list.size());
        for (T e : list) {
            element.accept(w, e);
        }
    }

    /** @param minElementBytes the fewest bytes an element takes: a count beyond what is left is refused before allocating */
    private static <T> List<T> readList(Reader r, int minElementBytes, Function<Reader, T> element) {
        int n = r.getCount(minElementBytes);
        if (n < 0) {
            return null;
        }
        List<T> list = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            list.add(element.apply(r));
        }
        return Collections.unmodifiableList(list);
    }

    /** A map with string keys: its count (-1 for null), then each key and value. */
    private static <V> void writeMap(Writer w, Map<String, V> map, BiConsumer<Writer, V> value) {
        if (map == null) {
            w.putInt(-1);
            return;
        }
        w.putInt(map.size());
        for (Map.Entry<String, V> e : map.entrySet()) {
            w.putString(e.getKey());
            value.accept(w, e.getValue());
        }
    }

    /** @param minValueBytes the fewest bytes a value takes (a key takes at least 4) */
    private static <V> Map<String, V> readMap(Reader r, int minValueBytes, Function<Reader, V> value) {
        int n = r.getCount(4 + minValueBytes);
        if (n < 0) {
            return null;
        }
        Map<String, V> map = new LinkedHashMap<>(capacity(n));
        for (int i = 0; i < n; i++) {
            String key = r.getString();
            map.put(key, value.apply(r));
        }
        return Collections.unmodifiableMap(map);
    }

    private static int capacity(int n) {
        return n < 3 ? n + 1 : (int) (n / 0.75f) + 1;
    }

    // ---------------------------------------------------------------- byte level

    /** A growing big-endian buffer; the first two bytes are the format and the kind. */
    private static final class Writer {
        private byte[] buf;
        private int pos;

        Writer(byte kind, int initial) {
            buf = new byte[initial];
            buf[0] = FORMAT;
            buf[1] = kind;
            pos = 2;
        }

        private void ensure(int n) {
            if (buf.length - pos < n) {
                long want = Math.max((long) buf.length * 2, (long) pos + n);
                if (want > Integer.MAX_VALUE - 8) {
                    throw new IllegalArgumentException("value too large to encode");
                }
                buf = Arrays.copyOf(buf, (int) want);
            }
        }

        void putByte(int b) {
            ensure(1);
            buf[pos++] = (byte) b;
        }

        void putBoolean(boolean b) {
            putByte(b ? 1 : 0);
        }

        void putInt(int v) {
            ensure(4);
            buf[pos] = (byte) (v >>> 24);
            buf[pos + 1] = (byte) (v >>> 16);
            buf[pos + 2] = (byte) (v >>> 8);
            buf[pos + 3] = (byte) v;
            pos += 4;
        }

        void putLong(long v) {
            putInt((int) (v >>> 32));
            putInt((int) v);
        }

        void putBytes(byte[] b) {
            if (b == null) {
                putInt(-1);
                return;
            }
            putInt(b.length);
            ensure(b.length);
            System.arraycopy(b, 0, buf, pos, b.length);
            pos += b.length;
        }

        void putString(String s) {
            putBytes(s == null ? null : s.getBytes(StandardCharsets.UTF_8));
        }

        byte[] toArray() {
            return Arrays.copyOf(buf, pos);
        }
    }

    /** Reads what {@link Writer} wrote, checking every length against the bytes left. */
    private static final class Reader {
        private final ByteBuffer in;
        private final String what;

        Reader(byte[] bytes, byte kind, String what) {
            this.what = what;
            if (bytes == null) {
                throw new IllegalArgumentException("cannot decode " + what + ": no bytes");
            }
            this.in = ByteBuffer.wrap(bytes);
            if (bytes.length < 2) {
                throw bad("truncated header");
            }
            byte format = in.get();
            if (format != FORMAT) {
                throw bad("unknown format " + format);
            }
            byte k = in.get();
            if (k != kind) {
                throw bad("kind " + k + " is not a " + what);
            }
        }

        IllegalArgumentException bad(String why) {
            return new IllegalArgumentException(
                    "cannot decode " + what + ": " + why + " (at byte " + in.position() + " of " + in.limit() + ")");
        }

        IllegalArgumentException malformed(RuntimeException cause) {
            return new IllegalArgumentException("cannot decode " + what + ": malformed (" + cause + ")", cause);
        }

        private void need(int n) {
            if (in.remaining() < n) {
                throw bad("truncated, " + n + " bytes needed, " + in.remaining() + " left");
            }
        }

        <T> T end(T value) {
            if (in.hasRemaining()) {
                throw bad(in.remaining() + " trailing bytes");
            }
            return value;
        }

        byte getByte() {
            need(1);
            return in.get();
        }

        boolean getBoolean() {
            byte b = getByte();
            if (b != 0 && b != 1) {
                throw bad("bad boolean " + b);
            }
            return b == 1;
        }

        int getInt() {
            need(4);
            return in.getInt();
        }

        long getLong() {
            need(8);
            return in.getLong();
        }

        /** A count of -1 (null) or of elements taking at least {@code minBytes} each. */
        int getCount(int minBytes) {
            int n = getInt();
            if (n < -1 || (n > 0 && n > in.remaining() / minBytes)) {
                throw bad("bad count " + n);
            }
            return n;
        }

        byte[] getBytes() {
            int n = getCount(1);
            if (n < 0) {
                return null;
            }
            byte[] b = new byte[n];
            in.get(b);
            return b;
        }

        String getString() {
            int n = getCount(1);
            if (n < 0) {
                return null;
            }
            String s = new String(in.array(), in.arrayOffset() + in.position(), n, StandardCharsets.UTF_8);
            in.position(in.position() + n);
            return s;
        }
    }
}
