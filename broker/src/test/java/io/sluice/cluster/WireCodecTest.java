package io.sluice.cluster;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.cluster.WireCodec.Envelope;
import io.sluice.cluster.WireCodec.Reply;
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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

class WireCodecTest {

    private static final String UNICODE = "héllo wörld \u4e2d\u6587 \uD83D\uDE00 \uE000 tab\t nl\n";

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

    private static Delivery nullDelivery() {
        return new Delivery(null, 0, null, null, null, null, 0, null, 0, 0, null, null, null, null);
    }

    // ---------------------------------------------------------------- messages, inside a Send

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
    void queueMetaRoundTrips() {
        QueueMeta q = new QueueMeta(
                "orders-\u00e9.fifo",
                true,
                16,
                1L,
                2L,
                Map.of("VisibilityTimeout", "45", "FifoQueue", "true", "Policy", UNICODE),
                Map.of("team", "\uD83D\uDE00", "empty", ""),
                12345L);
        assertEquals(q, WireCodec.decodeQueueMeta(WireCodec.encodeQueueMeta(q)));
        QueueMeta plain = new QueueMeta("q", false, 1, 0, 0, Map.of(), Map.of(), 0);
        QueueMeta back = WireCodec.decodeQueueMeta(WireCodec.encodeQueueMeta(plain));
        assertEquals(plain, back);
        assertTrue(back.attributes().isEmpty());
        assertTrue(back.tags().isEmpty());
        assertNull(back.redrivePolicy());
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
        QueueMeta redriveBack = WireCodec.decodeQueueMeta(WireCodec.encodeQueueMeta(withRedrive));
        assertEquals(withRedrive, redriveBack);
        assertEquals(new RedrivePolicy("arn:aws:sqs:us-east-1:000000000000:dlq", 7), redriveBack.redrivePolicy());
        assertEquals(3, redriveBack.delaySeconds());
    }

    // ---------------------------------------------------------------- requests

    private static Envelope roundTrip(PartitionRequest<?> r) {
        Envelope e = WireCodec.decodeRequest(WireCodec.encodeRequest("q-\u00e9", 3, r));
        assertEquals("q-\u00e9", e.queueName());
        assertEquals(3, e.partition());
        return e;
    }

    @Test
    void sendRoundTripsWithFifoFieldsAndState() {
        MessageRecord rec = MessageRecord.restore(fifoMessage());
        PartitionRequest.Send send = new PartitionRequest.Send(rec, 5000L, "group/dedup");
        PartitionRequest.Send back = (PartitionRequest.Send) roundTrip(send).request();
        assertEquals(rec.snapshot(), back.message().snapshot());
        assertEquals(rec.md5OfBody(), back.message().md5OfBody());
        assertEquals(rec.md5OfAttributes(), back.message().md5OfAttributes());
        assertEquals(5000L, back.delayMillis());
        assertEquals("group/dedup", back.dedupKey());

        MessageRecord std = new MessageRecord("m2", "body", Map.of(), Map.of(), 7L, "s", null, null, null);
        PartitionRequest.Send plain = (PartitionRequest.Send)
                roundTrip(new PartitionRequest.Send(std, 0)).request();
        assertEquals(std.snapshot(), plain.message().snapshot());
        assertNull(plain.dedupKey());
        assertNull(plain.message().state());
        assertNull(plain.message().messageGroupId());
    }

    @Test
    void everyOtherRequestRoundTrips() {
        List<PartitionRequest<?>> requests = List.of(
                new PartitionRequest.Receive(10, 30_000L, 5, 1000L),
                new PartitionRequest.Receive(1, 0),
                new PartitionRequest.Delete("m", 42L),
                new PartitionRequest.Delete(null, -1L),
                new PartitionRequest.ChangeVisibility("m", 42L, 0L, "handle+/="),
                new PartitionRequest.ChangeVisibility("m", 1L, 43_200_000L, null),
                new PartitionRequest.Purge(),
                new PartitionRequest.ReserveDedup("k\u00e9", "m"),
                new PartitionRequest.ConfirmDedup("k", "m", "18870000000000000001"),
                new PartitionRequest.ConfirmDedup("k", "m", null),
                new PartitionRequest.RememberAttempt(
                        "att", List.of(new AttemptRef(1, "a", 2), new AttemptRef(2, "b", 3))),
                new PartitionRequest.RememberAttempt("att", List.of()),
                new PartitionRequest.RememberAttempt(null, null),
                new PartitionRequest.RecallAttempt("att"),
                new PartitionRequest.RecallAttempt(null),
                new PartitionRequest.Redeliver("m", 9L));
        for (PartitionRequest<?> r : requests) {
            assertEquals(r, roundTrip(r).request(), r.toString());
        }
        Envelope nullQueue = WireCodec.decodeRequest(WireCodec.encodeRequest(null, -1, new PartitionRequest.Purge()));
        assertEquals(new Envelope(null, -1, new PartitionRequest.Purge()), nullQueue);
    }

    // ---------------------------------------------------------------- replies

    private static Object resultRoundTrip(Object v) {
        Reply reply = WireCodec.decodeReply(WireCodec.encodeResult(v));
        assertEquals(Reply.Kind.RESULT, reply.kind());
        assertEquals(reply.value(), WireCodec.decodeResult(WireCodec.encodeResult(v)));
        return reply.value();
    }

    @Test
    void everyResultTypeRoundTrips() {
        List<Object> results = List.of(
                Boolean.TRUE,
                Boolean.FALSE,
                new SendOutcome("m", "123", false),
                new SendOutcome("m", null, true),
                new ReceiveOutcome(List.of(delivery("a", 1), nullDelivery()), List.of(delivery("b", 2))),
                ReceiveOutcome.EMPTY,
                new DedupEntry("m", null, 5),
                List.of(new AttemptRef(0, "x", 1)),
                List.of(),
                delivery("c", 3),
                nullDelivery());
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
    void unsupportedResultIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> WireCodec.encodeResult("a string"));
        assertThrows(IllegalArgumentException.class, () -> WireCodec.encodeResult(List.of("not a ref")));
    }

    @Test
    void errorRoundTrips() {
        for (ErrorCode code : ErrorCode.values()) {
            SqsException e = new SqsException(code, "bad \u00e9 " + code);
            Reply reply = WireCodec.decodeReply(WireCodec.encodeError(e));
            assertEquals(Reply.Kind.ERROR, reply.kind());
            SqsException back = (SqsException) reply.value();
            assertEquals(code, back.code());
            assertEquals(e.getMessage(), back.getMessage());
        }
        SqsException thrown = assertThrows(
                SqsException.class,
                () -> WireCodec.decodeResult(WireCodec.encodeError(new SqsException(ErrorCode.OVER_LIMIT, null))));
        assertEquals(ErrorCode.OVER_LIMIT, thrown.code());
        assertNull(thrown.getMessage());
    }

    @Test
    void movedAndRebuildingRoundTrip() {
        Reply moved = WireCodec.decodeReply(WireCodec.encodeMoved());
        assertSame(Reply.moved(), moved);
        assertEquals(Reply.Kind.MOVED, moved.kind());
        assertNull(moved.value());
        Reply rebuilding = WireCodec.decodeReply(WireCodec.encodeReply(Reply.rebuilding()));
        assertEquals(Reply.Kind.REBUILDING, rebuilding.kind());
        assertEquals(
                Reply.Kind.REBUILDING,
                WireCodec.decodeReply(WireCodec.encodeRebuilding()).kind());
        assertThrows(IllegalStateException.class, () -> WireCodec.decodeResult(WireCodec.encodeMoved()));
        assertThrows(IllegalStateException.class, () -> WireCodec.decodeResult(WireCodec.encodeRebuilding()));
    }

    // ---------------------------------------------------------------- bad input

    private static List<byte[]> samples() {
        List<byte[]> s = new ArrayList<>();
        s.add(WireCodec.encodeQueueMeta(new QueueMeta("q", true, 2, 1, 2, Map.of("a", "b"), Map.of("t", "v"), 0)));
        s.add(WireCodec.encodeRequest("q", 1, new PartitionRequest.Send(MessageRecord.restore(fifoMessage()), 1, "k")));
        s.add(WireCodec.encodeRequest(
                "q", 1, new PartitionRequest.RememberAttempt("a", List.of(new AttemptRef(1, "a", 2)))));
        s.add(WireCodec.encodeResult(new ReceiveOutcome(List.of(delivery("a", 1)), List.of())));
        s.add(WireCodec.encodeError(new SqsException(ErrorCode.INTERNAL_FAILURE, "x")));
        return s;
    }

    /** Decodes with the decoder matching the sample's kind byte. */
    private static final List<Function<byte[], Object>> DECODERS = List.of(
            WireCodec::decodeQueueMeta,
            WireCodec::decodeRequest,
            WireCodec::decodeRequest,
            WireCodec::decodeReply,
            WireCodec::decodeReply);

    @Test
    void truncatedInputIsRefusedClearly() {
        List<byte[]> samples = samples();
        for (int i = 0; i < samples.size(); i++) {
            byte[] full = samples.get(i);
            Function<byte[], Object> decode = DECODERS.get(i);
            decode.apply(full);
            for (int len = 0; len < full.length; len++) {
                byte[] cut = Arrays.copyOf(full, len);
                IllegalArgumentException e = assertThrows(
                        IllegalArgumentException.class, () -> decode.apply(cut), "sample " + i + " cut at " + len);
                assertTrue(e.getMessage().startsWith("cannot decode"), e.getMessage());
            }
            byte[] longer = Arrays.copyOf(full, full.length + 1);
            assertThrows(IllegalArgumentException.class, () -> decode.apply(longer), "trailing byte");
        }
    }

    @Test
    void headerIsChecked() {
        assertThrows(IllegalArgumentException.class, () -> WireCodec.decodeRequest(null));
        byte[] msg =
                WireCodec.encodeRequest("q", 1, new PartitionRequest.Send(MessageRecord.restore(fifoMessage()), 0));
        IllegalArgumentException wrongKind =
                assertThrows(IllegalArgumentException.class, () -> WireCodec.decodeReply(msg));
        assertTrue(wrongKind.getMessage().contains("reply"), wrongKind.getMessage());
        byte[] future = msg.clone();
        future[0] = 99;
        IllegalArgumentException e =
                assertThrows(IllegalArgumentException.class, () -> WireCodec.decodeRequest(future));
        assertTrue(e.getMessage().contains("format"), e.getMessage());
    }

    @Test
    void hugeLengthsDoNotAllocate() {
        // A string claiming 2 GB, a map claiming 2^31-1 entries, a negative count.
        for (int n : new int[] {Integer.MAX_VALUE, 1 << 30, -2, Integer.MIN_VALUE}) {
            // a request whose queue name claims n bytes
            byte[] b = ByteBuffer.allocate(2 + 4 + 16)
                    .put(WireCodec.FORMAT)
                    .put((byte) 5)
                    .putInt(n)
                    .array();
            assertThrows(IllegalArgumentException.class, () -> WireCodec.decodeRequest(b));
        }
        byte[] meta = ByteBuffer.allocate(2 + 4 + 1 + 4 + 8 + 8 + 4 + 8)
                .put(WireCodec.FORMAT)
                .put((byte) 4)
                .putInt(1)
                .put((byte) 'q')
                .put((byte) 0)
                .putInt(1)
                .putLong(0)
                .putLong(0)
                .putInt(Integer.MAX_VALUE)
                .array();
        assertThrows(IllegalArgumentException.class, () -> WireCodec.decodeQueueMeta(meta));
    }

    @Test
    void garbageIsRefusedOrDecodedNeverWorse() {
        SplittableRandom random = new SplittableRandom(42);
        List<byte[]> samples = samples();
        for (int round = 0; round < 20_000; round++) {
            int i = random.nextInt(samples.size());
            byte[] b;
            if (random.nextBoolean()) {
                b = samples.get(i).clone();
                int flips = 1 + random.nextInt(4);
                for (int f = 0; f < flips; f++) {
                    b[2 + random.nextInt(b.length - 2)] = (byte) random.nextInt(256);
                }
            } else {
                b = new byte[random.nextInt(64)];
                for (int j = 0; j < b.length; j++) {
                    b[j] = (byte) random.nextInt(256);
                }
                if (b.length >= 2) {
                    b[0] = WireCodec.FORMAT;
                    b[1] = samples.get(i)[1];
                }
            }
            try {
                DECODERS.get(i).apply(b);
            } catch (IllegalArgumentException expected) {
                // refused clearly
            }
        }
    }

    @Test
    void unknownTagsAreRefused() {
        byte[] req = WireCodec.encodeRequest("q", 0, new PartitionRequest.Purge());
        req[req.length - 1] = 77;
        assertTrue(assertThrows(IllegalArgumentException.class, () -> WireCodec.decodeRequest(req))
                .getMessage()
                .contains("request type"));
        byte[] res = WireCodec.encodeResult(null);
        res[res.length - 1] = 77;
        assertTrue(assertThrows(IllegalArgumentException.class, () -> WireCodec.decodeReply(res))
                .getMessage()
                .contains("result type"));
        byte[] err = WireCodec.encodeError(new SqsException(ErrorCode.OVER_LIMIT, "m"));
        String text = new String(err, StandardCharsets.ISO_8859_1).replace("OVER_LIMIT", "NO_SUCH_XX");
        byte[] unknown = text.getBytes(StandardCharsets.ISO_8859_1);
        assertTrue(assertThrows(IllegalArgumentException.class, () -> WireCodec.decodeReply(unknown))
                .getMessage()
                .contains("error code"));
    }
}
