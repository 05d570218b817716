package io.sluice.cluster;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.internal.nio.BufferObjectDataOutput;
import com.hazelcast.internal.serialization.InternalSerializationService;
import com.hazelcast.map.IMap;
import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import com.hazelcast.spi.impl.SerializationServiceSupport;
import io.sluice.cluster.store.StoreSerialization;
import io.sluice.config.ClusterSettings;
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
import io.vertx.core.buffer.Buffer;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * What crosses between nodes, through the event-bus codecs over a real member's Hazelcast
 * serialization, configured as a node configures it: every forwarded request and reply type round-trips field for field, queue
 * metadata round-trips through the registry's map, and a
 * body that is truncated, of another type or garbage is refused with IllegalArgumentException.
 */
class WireSerializationTest {
    private static final String UNICODE = "héllo wörld \u4e2d\u6587 \uD83D\uDE00 \uE000 tab\t nl\n";

    private static HazelcastInstance hz;
    private static HazelcastMessageCodec<ForwardedRequest> requests;
    private static HazelcastMessageCodec<ForwardedReply> replies;

    @BeforeAll
    static void member() {
        hz = Hazelcast.newHazelcastInstance(HazelcastSetup.config(new ClusterSettings(null, "127.0.0.1", 0, 1)));
        requests = HazelcastMessageCodec.of(hz, ForwardedRequest.class);
        replies = HazelcastMessageCodec.of(hz, ForwardedReply.class);
    }

    @AfterAll
    static void shutdown() {
        hz.shutdown();
    }

    private static Buffer encode(ForwardedRequest request) {
        Buffer buffer = Buffer.buffer();
        requests.encodeToWire(buffer, request);
        return buffer;
    }

    private static Buffer encode(ForwardedReply reply) {
        Buffer buffer = Buffer.buffer();
        replies.encodeToWire(buffer, reply);
        return buffer;
    }

    /** Decodes with the codec registered for {@code type}, as the receiving node's event bus does. */
    private static <T> T decode(Buffer buffer, Class<T> type) {
        HazelcastMessageCodec<?> codec = type == ForwardedRequest.class ? requests : replies;
        return type.cast(codec.decodeFromWire(0, buffer));
    }

    private static Map<String, MessageAttributeValue> attributes() {
        Map<String, MessageAttributeValue> m = new LinkedHashMap<>();
        m.put("s", MessageAttributeValue.ofString("String", UNICODE));
        m.put("n", MessageAttributeValue.ofString("Number.int", "42"));
        m.put("b", MessageAttributeValue.ofBinary("Binary", new byte[] {0, -1, 127, -128, 10}));
        m.put("empty", MessageAttributeValue.ofBinary("Binary.x", new byte[0]));
        m.put("\uD83D\uDE00key", new MessageAttributeValue("String", "both", new byte[] {1}));
        return m;
    }

    private static StoredMessage fifoMessage() {
        return new StoredMessage(
                "id-1",
                UNICODE,
                attributes(),
                Map.of("AWSTraceHeader", MessageAttributeValue.ofString("String", "Root=1-abc")),
                1_700_000_000_123L,
                "AIDA123",
                "group-\u00e9",
                "dedup-1",
                "18870000000000000001",
                "arn:aws:sqs:us-east-1:000000000000:src",
                MessageState.IN_FLIGHT,
                Long.MAX_VALUE,
                3,
                1_700_000_000_456L,
                Long.MIN_VALUE,
                -7L);
    }

    private static Delivery delivery(String id, long token) {
        return new Delivery(
                id,
                token,
                UNICODE,
                "5d41402abc4b2a76b9719d911017c592",
                attributes(),
                Map.of(),
                1L,
                "sender",
                2,
                3L,
                "g",
                "d",
                "s",
                "arn");
    }

    private static Delivery sparseDelivery() {
        return new Delivery("m", 0, null, null, Map.of(), Map.of(), 0, null, 0, 0, null, null, null, null);
    }

    // ---------------------------------------------------------------- requests

    private static ForwardedRequest roundTrip(PartitionRequest<?> r) {
        ForwardedRequest back = decode(encode(new ForwardedRequest("q-\u00e9", 3, r)), ForwardedRequest.class);
        assertEquals("q-\u00e9", back.queueName());
        assertEquals(3, back.partition());
        return back;
    }

    /** A message as a forwarded Send carries it, and back. */
    private static StoredMessage viaSend(StoredMessage m) {
        return ((PartitionRequest.Send) roundTrip(new PartitionRequest.Send(MessageRecord.restore(m), 0))
                        .request())
                .message()
                .snapshot();
    }

    @Test
    void messageAttributesKeepTheirBinaryValues() {
        StoredMessage back = viaSend(fifoMessage());
        assertEquals(attributes().keySet(), back.attributes().keySet());
        assertArrayEquals(
                new byte[] {0, -1, 127, -128, 10}, back.attributes().get("b").binaryValue());
        assertNull(back.attributes().get("b").stringValue());
        assertNull(back.attributes().get("s").binaryValue());
        assertEquals(0, back.attributes().get("empty").binaryValue().length);
    }

    @Test
    void largeBodyRoundTrips() {
        String body = "\u00e9".repeat(200_000);
        StoredMessage m = new StoredMessage(
                "i", body, Map.of(), Map.of(), 0, null, null, null, null, null, MessageState.VISIBLE, 0, 0, 0, 0, 0);
        assertEquals(body, viaSend(m).body());
    }

    @Test
    void sendRoundTripsWithFifoFieldsAndState() {
        MessageRecord rec = MessageRecord.restore(fifoMessage());
        PartitionRequest.Send back = (PartitionRequest.Send)
                roundTrip(new PartitionRequest.Send(rec, 5000L, "group/dedup")).request();
        assertEquals(rec.snapshot(), back.message().snapshot());
        assertEquals(rec.md5OfBody(), back.message().md5OfBody());
        assertEquals(rec.md5OfAttributes(), back.message().md5OfAttributes());
        assertEquals(5000L, back.delayMillis());
        assertEquals("group/dedup", back.dedupKey());

        // A new message, as a node forwards it: no state yet.
        MessageRecord fresh = new MessageRecord("m2", "body", Map.of(), Map.of(), 7L, "s", null, null, null);
        PartitionRequest.Send plain = (PartitionRequest.Send)
                roundTrip(new PartitionRequest.Send(fresh, 0)).request();
        assertEquals(fresh.snapshot(), plain.message().snapshot());
        assertNull(plain.dedupKey());
        assertNull(plain.message().state());
        assertNull(plain.message().messageGroupId());
    }

    @Test
    void aBatchOfSendsRoundTripsInOrder() {
        MessageRecord first = new MessageRecord("m1", "one", attributes(), Map.of(), 7L, "s", null, null, null);
        MessageRecord second = new MessageRecord("m2", "two", Map.of(), Map.of(), 8L, "s", "fair", null, null);
        PartitionRequest.SendBatch back = (PartitionRequest.SendBatch) roundTrip(new PartitionRequest.SendBatch(
                        List.of(new PartitionRequest.Send(first, 0), new PartitionRequest.Send(second, 2000L))))
                .request();
        assertEquals(2, back.parts().size());
        assertEquals(first.snapshot(), back.parts().get(0).message().snapshot());
        assertEquals(second.snapshot(), back.parts().get(1).message().snapshot());
        assertEquals(2000L, back.parts().get(1).delayMillis());
        assertNull(back.parts().get(1).dedupKey());
    }

    @Test
    void everyOtherRequestRoundTrips() {
        List<PartitionRequest<?>> requests = List.of(
                new PartitionRequest.Receive(10, 30_000L, 5, 1000L),
                new PartitionRequest.Receive(1, 0),
                new PartitionRequest.Delete("m", 42L),
                new PartitionRequest.Delete(null, -1L),
                new PartitionRequest.DeleteBatch(
                        List.of(new PartitionRequest.Delete("m", 42L), new PartitionRequest.Delete("n", 7L))),
                new PartitionRequest.ChangeVisibility("m", 42L, 0L, "handle+/="),
                new PartitionRequest.ChangeVisibility("m", 1L, 43_200_000L, null),
                new PartitionRequest.Purge(),
                new PartitionRequest.ReserveDedup("k\u00e9", "m"),
                new PartitionRequest.ConfirmDedup("k", "m", "18870000000000000001"),
                new PartitionRequest.ConfirmDedup("k", "m", null),
                new PartitionRequest.RememberAttempt(
                        "att", List.of(new AttemptRef(1, "a", 2), new AttemptRef(2, "b", 3))),
                new PartitionRequest.RememberAttempt("att", List.of()),
                new PartitionRequest.RecallAttempt("att"),
                new PartitionRequest.RecallAttempt(null),
                new PartitionRequest.Redeliver("m", 9L));
        for (PartitionRequest<?> r : requests) {
            assertEquals(r, roundTrip(r).request(), r.toString());
        }
    }

    // ---------------------------------------------------------------- replies

    private static ForwardedReply roundTrip(ForwardedReply reply) {
        return decode(encode(reply), ForwardedReply.class);
    }

    private static Object resultRoundTrip(Object v) {
        ForwardedReply reply = roundTrip(ForwardedReply.result(v));
        assertEquals(ForwardedReply.Kind.RESULT, reply.kind());
        return reply.get();
    }

    @Test
    void everyResultTypeRoundTrips() {
        List<Object> results = List.of(
                Boolean.TRUE,
                Boolean.FALSE,
                new SendOutcome("m", "123", false),
                new SendOutcome("m", null, true),
                List.of(new SendOutcome("m1", null, false), new SendOutcome("m2", "124", true)),
                List.of(true, false, true),
                new ReceiveOutcome(List.of(delivery("a", 1), sparseDelivery()), List.of(delivery("b", 2))),
                ReceiveOutcome.EMPTY,
                new DedupEntry("m", null, 5),
                List.of(new AttemptRef(0, "x", 1)),
                List.of(),
                delivery("c", 3),
                sparseDelivery());
        for (Object v : results) {
            assertEquals(v, resultRoundTrip(v), v.toString());
        }
        assertNull(resultRoundTrip(null));
        assertInstanceOf(Boolean.class, resultRoundTrip(true));
        ReceiveOutcome empty = (ReceiveOutcome) resultRoundTrip(ReceiveOutcome.EMPTY);
        assertTrue(empty.delivered().isEmpty() && empty.toMove().isEmpty());
        Delivery d = (Delivery) resultRoundTrip(delivery("c", 3));
        assertArrayEquals(
                new byte[] {0, -1, 127, -128, 10}, d.attributes().get("b").binaryValue());
    }

    @Test
    void aResultOfAnotherTypeIsRefused() {
        assertThrows(RuntimeException.class, () -> encode(ForwardedReply.result("a string")));
        assertThrows(RuntimeException.class, () -> encode(ForwardedReply.result(List.of("not a ref"))));
    }

    @Test
    void errorsRoundTripWithEveryCode() {
        for (ErrorCode code : ErrorCode.values()) {
            SqsException e = new SqsException(code, "bad \u00e9 " + code);
            ForwardedReply reply = roundTrip(ForwardedReply.error(e));
            assertEquals(ForwardedReply.Kind.ERROR, reply.kind());
            SqsException back = assertThrows(SqsException.class, reply::get);
            assertEquals(code, back.code());
            assertEquals(e.getMessage(), back.getMessage());
        }
        SqsException noMessage = assertThrows(
                SqsException.class,
                () -> roundTrip(ForwardedReply.error(new SqsException(ErrorCode.OVER_LIMIT, null)))
                        .get());
        assertEquals(ErrorCode.OVER_LIMIT, noMessage.code());
        assertNull(noMessage.getMessage());
    }

    @Test
    void movedRoundTrips() {
        ForwardedReply moved = roundTrip(ForwardedReply.moved());
        assertEquals(ForwardedReply.Kind.MOVED, moved.kind());
        assertThrows(IllegalStateException.class, moved::get);
        assertSame(ForwardedReply.Kind.MOVED, ForwardedReply.moved().kind());
    }

    // ---------------------------------------------------------------- queue metadata

    @Test
    void queueMetaRoundTripsThroughTheRegistryMap() {
        IMap<String, QueueMeta> queues = hz.getMap(HazelcastSetup.QUEUES_MAP);
        QueueMeta fifo = new QueueMeta(
                "orders-\u00e9.fifo",
                true,
                16,
                1L,
                2L,
                Map.of("VisibilityTimeout", "45", "FifoQueue", "true", "Policy", UNICODE),
                Map.of("team", "\uD83D\uDE00", "empty", ""),
                12345L);
        QueueMeta plain = new QueueMeta("q", false, 1, 0, 0, Map.of(), Map.of(), 0);
        QueueMeta withRedrive = new QueueMeta(
                "src",
                false,
                2,
                0,
                0,
                Map.of("DelaySeconds", "3"),
                Map.of(),
                0,
                new RedrivePolicy("arn:aws:sqs:us-east-1:000000000000:dlq", 7));
        for (QueueMeta q : List.of(fifo, plain, withRedrive)) {
            queues.put(q.name(), q);
            QueueMeta back = queues.get(q.name());
            assertEquals(q, back);
            assertEquals(q.redrivePolicy(), back.redrivePolicy());
        }
        assertNull(queues.get("src").attributes().get("RedrivePolicy"));
        assertEquals(3, queues.get("src").delaySeconds());
        assertTrue(queues.get("q").tags().isEmpty());
    }

    // ---------------------------------------------------------------- bad input

    /** The one count-then-elements form of the store and the forwarded replies (deliveries, attempt references). */
    @Test
    void listsRoundTripAndANegativeSizeIsRefused() throws IOException {
        InternalSerializationService ss =
                (InternalSerializationService) ((SerializationServiceSupport) hz).getSerializationService();
        BufferObjectDataOutput out = ss.createObjectDataOutput();
        StoreSerialization.writeList(out, List.of("a", UNICODE), ObjectDataOutput::writeString);
        StoreSerialization.writeList(out, List.of(), ObjectDataOutput::writeString);
        out.writeInt(-1);
        ObjectDataInput in = ss.createObjectDataInput(out.toByteArray());
        assertEquals(List.of("a", UNICODE), StoreSerialization.readList(in, ObjectDataInput::readString));
        assertEquals(List.of(), StoreSerialization.readList(in, ObjectDataInput::readString));
        IOException e =
                assertThrows(IOException.class, () -> StoreSerialization.readList(in, ObjectDataInput::readString));
        assertTrue(e.getMessage().contains("negative"), e.getMessage());
    }

    @Test
    void aBodyOfAnotherTypeIsRefused() {
        Buffer request = encode(new ForwardedRequest("q", 0, new PartitionRequest.Purge()));
        IllegalArgumentException e =
                assertThrows(IllegalArgumentException.class, () -> decode(request, ForwardedReply.class));
        assertTrue(e.getMessage().contains("ForwardedReply"), e.getMessage());
    }

    @Test
    void truncatedBodiesAreRefused() {
        List<Buffer> samples = List.of(
                encode(new ForwardedRequest(
                        "q", 1, new PartitionRequest.Send(MessageRecord.restore(fifoMessage()), 1, "k"))),
                encode(new ForwardedRequest(
                        "q", 1, new PartitionRequest.RememberAttempt("a", List.of(new AttemptRef(1, "a", 2))))),
                encode(ForwardedReply.result(new ReceiveOutcome(List.of(delivery("a", 1)), List.of()))),
                encode(ForwardedReply.error(new SqsException(ErrorCode.INTERNAL_FAILURE, "x"))));
        List<Class<?>> types =
                List.of(ForwardedRequest.class, ForwardedRequest.class, ForwardedReply.class, ForwardedReply.class);
        for (int i = 0; i < samples.size(); i++) {
            Buffer full = samples.get(i);
            Class<?> type = types.get(i);
            decode(full, type);
            for (int len = 0; len < full.length(); len++) {
                Buffer cut = full.getBuffer(0, len);
                assertThrows(IllegalArgumentException.class, () -> decode(cut, type), "sample " + i + " cut at " + len);
            }
        }
    }

    /**
     * Bytes that are no serialized value at all. (A corrupted length inside a valid value is not
     * covered: Hazelcast's input allocates what a byte array's length says, as it does for every
     * operation between members. Event-bus bodies, like Hazelcast's, come only from members.)
     */
    @Test
    void randomBytesAreRefused() {
        SplittableRandom random = new SplittableRandom(7);
        for (int i = 0; i < 200; i++) {
            byte[] bytes = new byte[1 + random.nextInt(300)];
            random.nextBytes(bytes);
            assertThrows(IllegalArgumentException.class, () -> decode(Buffer.buffer(bytes), ForwardedReply.class));
        }
    }

    // ---------------------------------------------------------------- bundles

    @Test
    void aBundleCarriesItsRequestsInOrderAndItsRepliesComeBackInOrder() {
        HazelcastMessageCodec<ForwardedBundle> bundles = HazelcastMessageCodec.of(hz, ForwardedBundle.class);
        HazelcastMessageCodec<ForwardedReplies> answers = HazelcastMessageCodec.of(hz, ForwardedReplies.class);
        ForwardedBundle bundle = new ForwardedBundle(List.of(
                new ForwardedRequest("q-1", 0, new PartitionRequest.Delete("m-1", 7)),
                new ForwardedRequest("q-\u00e9", 5, new PartitionRequest.Receive(10, 30_000, 3, 0)),
                new ForwardedRequest("q-1", 2, new PartitionRequest.Purge())));
        Buffer wire = Buffer.buffer();
        bundles.encodeToWire(wire, bundle);
        ForwardedBundle back = bundles.decodeFromWire(0, wire);
        assertEquals(
                List.of("q-1#0", "q-\u00e9#5", "q-1#2"),
                back.requests().stream()
                        .map(r -> r.queueName() + "#" + r.partition())
                        .toList());
        assertEquals(
                new PartitionRequest.Delete("m-1", 7), back.requests().get(0).request());
        assertEquals(
                new PartitionRequest.Receive(10, 30_000, 3, 0),
                back.requests().get(1).request());
        assertInstanceOf(PartitionRequest.Purge.class, back.requests().get(2).request());

        ForwardedReplies replies = new ForwardedReplies(List.of(
                ForwardedReply.result(true),
                ForwardedReply.moved(),
                ForwardedReply.error(new SqsException(ErrorCode.RECEIPT_HANDLE_IS_INVALID, "gone"))));
        Buffer answered = Buffer.buffer();
        answers.encodeToWire(answered, replies);
        List<ForwardedReply> read = answers.decodeFromWire(0, answered).replies();
        assertEquals(
                List.of(ForwardedReply.Kind.RESULT, ForwardedReply.Kind.MOVED, ForwardedReply.Kind.ERROR),
                read.stream().map(ForwardedReply::kind).toList());
        assertEquals(true, read.get(0).get());
        assertEquals(
                ErrorCode.RECEIPT_HANDLE_IS_INVALID,
                assertThrows(SqsException.class, read.get(2)::get).code());
        for (int len = 0; len < answered.length(); len++) {
            Buffer cut = answered.getBuffer(0, len);
            assertThrows(IllegalArgumentException.class, () -> answers.decodeFromWire(0, cut), "cut at " + len);
        }
    }
}
