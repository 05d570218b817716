package io.sluice.protocol;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.io.SerializedString;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Writes a JSON protocol response body with Jackson's streaming generator. What it adds to Vert.x's
 * own encoding ({@link JsonObject#toBuffer()}) is speed on the receive path, where the bodies,
 * message ids and receipt handles of up to ten messages go out per answer: a string that needs no
 * escaping (no control character, quote or backslash: every id, handle and digest, and most
 * bodies) is copied as its UTF-8 bytes instead of being escaped character by character, and member
 * names, a small fixed set, are encoded once. The output is the same JSON.
 */
final class JsonBody {
    private static final JsonFactory FACTORY = new JsonFactory();
    /** Member names are the SQS API's own (and attribute names, bounded by the queue's): a small set. */
    private static final int MAX_NAMES = 4_096;

    private static final VarHandle LANES = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final long ONES = 0x0101010101010101L;
    private static final long TOP_BITS = 0x8080808080808080L;
    private static final long CONTROL_LIMIT = 0x20 * ONES;
    private static final long QUOTES = '"' * ONES;
    private static final long BACKSLASHES = '\\' * ONES;

    private static final Map<String, SerializedString> NAMES = new ConcurrentHashMap<>();

    private JsonBody() {}

    static Buffer encode(JsonObject members) {
        BufferStream out = new BufferStream();
        try (JsonGenerator gen = FACTORY.createGenerator(out)) {
            writeObject(gen, members.getMap());
        } catch (IOException e) {
            throw new UncheckedIOException("writing to memory cannot fail", e);
        }
        return out.buffer == null ? Buffer.buffer() : out.buffer;
    }

    /**
     * The generator fills a buffer of its own and hands it over here when full and when closed: a
     * body under its 8,000 bytes is one copy into a buffer of its size.
     */
    private static final class BufferStream extends OutputStream {
        private Buffer buffer;

        @Override
        public void write(int b) {
            write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public void write(byte[] b, int off, int len) {
            if (buffer == null) {
                buffer = Buffer.buffer(len);
            }
            buffer.appendBytes(b, off, len);
        }
    }

    private static void writeObject(JsonGenerator gen, Map<?, ?> object) throws IOException {
        gen.writeStartObject();
        for (Map.Entry<?, ?> e : object.entrySet()) {
            gen.writeFieldName(name(String.valueOf(e.getKey())));
            writeValue(gen, e.getValue());
        }
        gen.writeEndObject();
    }

    private static void writeValue(JsonGenerator gen, Object value) throws IOException {
        if (value == null) {
            gen.writeNull();
        } else if (value instanceof String s) {
            writeString(gen, s);
        } else if (value instanceof JsonObject o) {
            writeObject(gen, o.getMap());
        } else if (value instanceof JsonArray a) {
            writeArray(gen, a.getList());
        } else if (value instanceof Map<?, ?> m) {
            writeObject(gen, m);
        } else if (value instanceof List<?> l) {
            writeArray(gen, l);
        } else if (value instanceof Boolean b) {
            gen.writeBoolean(b);
        } else if (value instanceof Integer
                || value instanceof Long
                || value instanceof Short
                || value instanceof Byte) {
            gen.writeNumber(((Number) value).longValue());
        } else if (value instanceof BigDecimal d) {
            gen.writeNumber(d);
        } else if (value instanceof BigInteger i) {
            gen.writeNumber(i);
        } else if (value instanceof Number n) {
            gen.writeNumber(n.doubleValue());
        } else {
            writeString(gen, value.toString());
        }
    }

    private static void writeArray(JsonGenerator gen, List<?> list) throws IOException {
        gen.writeStartArray();
        for (Object element : list) {
            writeValue(gen, element);
        }
        gen.writeEndArray();
    }

    private static void writeString(JsonGenerator gen, String s) throws IOException {
        byte[] utf8 = s.getBytes(StandardCharsets.UTF_8);
        if (needsEscaping(utf8)) {
            gen.writeString(s);
        } else {
            gen.writeRawUTF8String(utf8, 0, utf8.length);
        }
    }

    /**
     * Whether JSON requires an escape in these UTF-8 bytes: a control character, a quote or a
     * backslash. Bytes of multi-byte characters are all 0x80 or above and go out as they are.
     * Eight bytes are tested at a time (a bytewise loop took as long as Jackson's escaping itself):
     * a lane below 0x20 borrows into its top bit when 0x20 is taken from it, and a lane equal to
     * the quote or the backslash is zero after the XOR, so taking 0x01 from it does the same; the
     * {@code & ~lanes} drops lanes whose own top bit is set (the XOR keeps top bits as they are). A
     * borrow only crosses into the next lane from a lane that is itself a hit, so there are no
     * false answers for the word as a whole.
     */
    static boolean needsEscaping(byte[] utf8) {
        int i = 0;
        for (; i + Long.BYTES <= utf8.length; i += Long.BYTES) {
            long lanes = (long) LANES.get(utf8, i);
            long borrows = (lanes - CONTROL_LIMIT) | ((lanes ^ QUOTES) - ONES) | ((lanes ^ BACKSLASHES) - ONES);
            if ((borrows & ~lanes & TOP_BITS) != 0) {
                return true;
            }
        }
        for (; i < utf8.length; i++) {
            byte b = utf8[i];
            if ((b >= 0 && b < 0x20) || b == '"' || b == '\\') {
                return true;
            }
        }
        return false;
    }

    private static SerializedString name(String name) {
        SerializedString known = NAMES.get(name);
        if (known != null) {
            return known;
        }
        SerializedString made = new SerializedString(name);
        if (NAMES.size() < MAX_NAMES) {
            NAMES.putIfAbsent(name, made);
        }
        return made;
    }
}
