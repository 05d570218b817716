package io.sluice.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.queue.ErrorCode;
import io.sluice.queue.SqsException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ParamsTest {
    private static Params p(String json) {
        return new Params(new JsonObject(json));
    }

    private static SqsException fails(Runnable r) {
        return assertThrows(SqsException.class, r::run);
    }

    @Test
    void requiredString() {
        assertEquals("q", p("{\"QueueName\":\"q\"}").requiredString("QueueName"));
        for (String json : List.of("{}", "{\"QueueName\":\"\"}", "{\"QueueName\":null}")) {
            SqsException e = fails(() -> p(json).requiredString("QueueName"));
            assertEquals(ErrorCode.MISSING_PARAMETER, e.code());
            assertEquals("The request must contain the parameter QueueName.", e.getMessage());
        }
        assertEquals(
                ErrorCode.SERIALIZATION_ERROR,
                fails(() -> p("{\"QueueName\":5}").requiredString("QueueName")).code());
    }

    @Test
    void optionalString() {
        assertNull(p("{}").optionalString("NextToken"));
        assertEquals("", p("{\"NextToken\":\"\"}").optionalString("NextToken"));
        assertEquals(
                ErrorCode.SERIALIZATION_ERROR,
                fails(() -> p("{\"NextToken\":[]}").optionalString("NextToken")).code());
    }

    @Test
    void optionalIntAcceptsNumbersAndNumericStrings() {
        assertNull(p("{}").optionalInt("DelaySeconds"));
        assertEquals(5, p("{\"DelaySeconds\":5}").optionalInt("DelaySeconds"));
        assertEquals(5, p("{\"DelaySeconds\":\"5\"}").optionalInt("DelaySeconds"));
        assertEquals(-1, p("{\"DelaySeconds\":\"-1\"}").optionalInt("DelaySeconds"));
        assertEquals(7, p("{\"DelaySeconds\":7.0}").optionalInt("DelaySeconds"));
    }

    @Test
    void optionalIntRejectsNonIntegers() {
        for (String raw : List.of("\"abc\"", "\"1.5\"", "\"\"", "\" 5\"", "1.5", "99999999999", "\"99999999999\"")) {
            SqsException e = fails(() -> p("{\"DelaySeconds\":" + raw + "}").optionalInt("DelaySeconds"));
            assertEquals(ErrorCode.INVALID_PARAMETER_VALUE, e.code(), raw);
            assertTrue(e.getMessage().startsWith("Value "), e.getMessage());
            assertTrue(
                    e.getMessage().endsWith(" for parameter DelaySeconds is invalid. Reason: must be an integer."),
                    e.getMessage());
        }
        assertEquals(
                "Value abc for parameter DelaySeconds is invalid. Reason: must be an integer.",
                fails(() -> p("{\"DelaySeconds\":\"abc\"}").optionalInt("DelaySeconds"))
                        .getMessage());
        assertEquals(
                ErrorCode.SERIALIZATION_ERROR,
                fails(() -> p("{\"DelaySeconds\":true}").optionalInt("DelaySeconds"))
                        .code());
    }

    @Test
    void optionalBoolean() {
        assertNull(p("{}").optionalBoolean("FifoQueue"));
        assertTrue(p("{\"FifoQueue\":true}").optionalBoolean("FifoQueue"));
        assertTrue(p("{\"FifoQueue\":\"TRUE\"}").optionalBoolean("FifoQueue"));
        assertFalse(p("{\"FifoQueue\":\"false\"}").optionalBoolean("FifoQueue"));
        assertEquals(
                ErrorCode.INVALID_PARAMETER_VALUE,
                fails(() -> p("{\"FifoQueue\":\"yes\"}").optionalBoolean("FifoQueue"))
                        .code());
        assertEquals(
                ErrorCode.SERIALIZATION_ERROR,
                fails(() -> p("{\"FifoQueue\":1}").optionalBoolean("FifoQueue")).code());
    }

    @Test
    void stringList() {
        assertEquals(List.of(), p("{}").stringList("AttributeNames"));
        assertEquals(
                List.of("All", "SenderId"),
                p("{\"AttributeNames\":[\"All\",\"SenderId\"]}").stringList("AttributeNames"));
        assertEquals(
                ErrorCode.SERIALIZATION_ERROR,
                fails(() -> p("{\"AttributeNames\":\"All\"}").stringList("AttributeNames"))
                        .code());
        assertEquals(
                ErrorCode.SERIALIZATION_ERROR,
                fails(() -> p("{\"AttributeNames\":[1]}").stringList("AttributeNames"))
                        .code());
    }

    @Test
    void stringMapKeepsOrder() {
        Map<String, String> m = p("{\"Attributes\":{\"b\":\"1\",\"a\":\"2\"}}").stringMap("Attributes");
        assertEquals(List.of("b", "a"), List.copyOf(m.keySet()));
        assertEquals("2", m.get("a"));
        assertTrue(p("{}").stringMap("Attributes").isEmpty());
        assertEquals(
                ErrorCode.SERIALIZATION_ERROR,
                fails(() -> p("{\"Attributes\":{\"a\":1}}").stringMap("Attributes"))
                        .code());
        assertEquals(
                ErrorCode.SERIALIZATION_ERROR,
                fails(() -> p("{\"Attributes\":[]}").stringMap("Attributes")).code());
    }

    @Test
    void objectMapAndObjectList() {
        Params params = p("{\"MessageAttributes\":{\"c\":{\"DataType\":\"String\",\"StringValue\":\"v\"}},"
                + "\"Entries\":[{\"Id\":\"1\"},{\"Id\":\"2\"}]}");
        assertEquals("String", params.objectMap("MessageAttributes").get("c").requiredString("DataType"));
        assertEquals(
                List.of("1", "2"),
                params.objectList("Entries").stream()
                        .map(e -> e.requiredString("Id"))
                        .toList());
        assertTrue(params.objectList("Missing").isEmpty());
        assertTrue(params.objectMap("Missing").isEmpty());
        assertEquals(
                ErrorCode.SERIALIZATION_ERROR,
                fails(() -> p("{\"Entries\":[\"x\"]}").objectList("Entries")).code());
        assertEquals(
                ErrorCode.SERIALIZATION_ERROR,
                fails(() -> p("{\"M\":{\"a\":\"x\"}}").objectMap("M")).code());
    }

    @Test
    void hasAndJson() {
        Params params = new Params(new JsonObject().put("a", "x").putNull("b").put("c", new JsonArray()));
        assertTrue(params.has("a"));
        assertFalse(params.has("b"));
        assertFalse(params.has("z"));
        assertTrue(params.has("c"));
        assertEquals("x", params.json().getString("a"));
        assertTrue(new Params(null).json().isEmpty());
    }
}
