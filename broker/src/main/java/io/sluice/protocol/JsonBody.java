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
 * message ids and receipt handles of up to ten messages go out per answer: a string of plain
 * printable ASCII with nothing to escape (every id, handle and digest, and many bodies) is copied
 * as its bytes instead of being escaped character by character, and such member names are encoded
 * once. Any other string goes through Jackson's own {@code writeString} and {@code writeFieldName},
 * as in Vert.x, so the output is byte for byte what {@code toBuffer} writes.
 */
final class JsonBody {
    private static final JsonFactory FACTORY = new JsonFactory();
    /**
     * Member names are mostly the SQS API's own; the names of message attributes and tags are the
     * users', so the cache stops growing here and later names are encoded each time.
     */
    private static final int MAX_NAMES = 4_096;

    private static final VarHandle LANES = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final long ONES = 0x0101010101010101L;
    private static final long TOP_BITS = 0x8080808080808080L;
    private static final long CONTROL_LIMIT = 0x20 * ONES;
    private static final long QUOTES = '"' * ONES;
    private static final long BACKSLASHES = '\\' * ONES;
    private static final long QUESTION_MARKS = '?' * ONES;

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
            writeName(gen, String.valueOf(e.getKey()));
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
        byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
        if (isPlainAscii(bytes)) {
            gen.writeRawUTF8String(bytes, 0, bytes.length);
        } else {
            gen.writeString(s);
        }
    }

    /**
     * Whether these UTF-8 bytes are all printable ASCII that JSON takes as it is: 0x20 to 0x7F but
     * the quote and the backslash, and but the question mark, which is what the JDK's encoder
     * writes for half a surrogate pair (such a string, which only a tag may hold, and any with a
     * real question mark go to Jackson, which escapes the half as Vert.x did). Eight bytes are tested at a time (a bytewise loop took as long
     * as Jackson's escaping itself): a lane below 0x20 borrows into its top bit when 0x20 is taken
     * from it, a lane equal to the quote, the backslash or the question mark is zero after the XOR, so taking 0x01
     * from it does the same, and a lane of 0x80 or above (any byte of a multi-byte character) has
     * its top bit set already. A borrow only crosses into the next lane from a lane that is itself
     * a hit, so the answer for the word as a whole is exact.
     */
    static boolean isPlainAscii(byte[] bytes) {
        int i = 0;
        for (; i + Long.BYTES <= bytes.length; i += Long.BYTES) {
            long lanes = (long) LANES.get(bytes, i);
            long borrows = (lanes - CONTROL_LIMIT)
                    | ((lanes ^ QUOTES) - ONES)
                    | ((lanes ^ BACKSLASHES) - ONES)
                    | ((lanes ^ QUESTION_MARKS) - ONES);
            if (((borrows | lanes) & TOP_BITS) != 0) {
                return false;
            }
        }
        for (; i < bytes.length; i++) {
            byte b = bytes[i];
            if (b < 0x20 || b == '"' || b == '\\' || b == '?') { // a byte of 0x80 or above is negative
                return false;
            }
        }
        return true;
    }

    private static void writeName(JsonGenerator gen, String name) throws IOException {
        SerializedString known = NAMES.get(name);
        if (known != null) {
            gen.writeFieldName(known);
            return;
        }
        if (!isPlainAscii(name.getBytes(StandardCharsets.UTF_8))) {
            gen.writeFieldName(name);
            return;
        }
        SerializedString made = new SerializedString(name);
        if (NAMES.size() < MAX_NAMES) {
            NAMES.putIfAbsent(name, made);
        }
        gen.writeFieldName(made);
    }
}
