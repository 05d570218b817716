package io.sluice.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

class JsonBodyTest {

    /** The plain definition the word-at-a-time scan must agree with. */
    private static boolean isPlainAsciiByteByByte(byte[] bytes) {
        for (byte b : bytes) {
            int u = b & 0xFF;
            if (u < 0x20 || u > 0x7F || u == '"' || u == '\\' || u == '?') {
                return false;
            }
        }
        return true;
    }

    @Test
    void theScanFindsEveryByteThatIsNotPlainAsciiAtEveryPosition() {
        for (int length = 0; length <= 24; length++) {
            for (int at = 0; at < length; at++) {
                for (int value = 0; value < 256; value++) {
                    byte[] bytes = new byte[length];
                    // neighbours that borrow or sit next to the limits
                    byte[] around = {0x20, 0x21, 0x23, 0x3E, 0x40, 0x5B, 0x5D, 0x7F, (byte) 0x80, (byte) 0xFF};
                    for (int i = 0; i < length; i++) {
                        bytes[i] = around[(i + value) % around.length];
                    }
                    bytes[at] = (byte) value;
                    assertEquals(
                            isPlainAsciiByteByByte(bytes),
                            JsonBody.isPlainAscii(bytes),
                            "byte 0x" + Integer.toHexString(value) + " at " + at + " of " + length);
                }
            }
        }
    }

    @Test
    void theScanAgreesWithTheDefinitionOnRandomBytes() {
        Random random = new Random(7);
        for (int n = 0; n < 200_000; n++) {
            byte[] bytes = new byte[random.nextInt(40)];
            for (int i = 0; i < bytes.length; i++) {
                // mostly printable ASCII, sometimes anything
                bytes[i] = random.nextInt(8) == 0 ? (byte) random.nextInt(256) : (byte) (0x20 + random.nextInt(0x60));
            }
            assertEquals(isPlainAsciiByteByByte(bytes), JsonBody.isPlainAscii(bytes));
        }
    }

    @Test
    void writesTheSameBytesAsVertxForEveryKindOfValue() {
        Map<String, Object> plainMap = new LinkedHashMap<>();
        plainMap.put("k", "v\"w");
        plainMap.put("n", 3);
        JsonObject members = new JsonObject()
                .put(
                        "Messages",
                        new JsonArray()
                                .add(new JsonObject()
                                        .put("MessageId", "5fea7756-0ea4-451a-a703-a558b933e274")
                                        .put("Body", "x".repeat(300))
                                        .put("MD5OfBody", "fafb00f5732ab283681e124bf8747ed1"))
                                .add(new JsonObject()
                                        .put("Body", "tab\there \"quoted\" back\\slash line\nend \u0001 \u001f")
                                        .put("Unicode", "é ü 中文 😀 \u007f")
                                        .put("Attributes", new JsonObject().put("SentTimestamp", "1764921600000"))))
                .put("Empty", "")
                .put("Int", 42)
                .put("Long", 1_764_921_600_000L)
                .put("Double", 1.5)
                .put("Decimal", new BigDecimal("12.50"))
                .put("True", true)
                .put("False", false)
                .putNull("Null")
                .put("EmptyObject", new JsonObject())
                .put("EmptyArray", new JsonArray())
                .put("PlainMap", plainMap)
                .put("PlainList", List.of("a", 1, false))
                // half a surrogate pair, in a value and in a name (a tag's key may hold one)
                .put("Half", "x\uDC00y")
                .put("\uDC00key", "v")
                .put("é-key", "v");
        String vertx = members.toBuffer().toString(StandardCharsets.UTF_8);
        assertEquals(vertx, JsonBody.encode(members).toString(StandardCharsets.UTF_8));
        // again: member names now come from the cache
        assertEquals(vertx, JsonBody.encode(members).toString(StandardCharsets.UTF_8));
    }

    @Test
    void aBodyLongerThanTheGeneratorsBufferComesOutWhole() {
        String body = "0123456789abcdef".repeat(40_000) + "\"end\"";
        JsonObject members = new JsonObject().put("Body", body).put("Next", "x".repeat(9_000));
        assertEquals(
                members.toBuffer().toString(StandardCharsets.UTF_8),
                JsonBody.encode(members).toString(StandardCharsets.UTF_8));
    }

    @Test
    void anEmptyResultIsAnEmptyObject() {
        assertEquals("{}", JsonBody.encode(new JsonObject()).toString(StandardCharsets.UTF_8));
    }
}
