package io.sluice.protocol;

import io.sluice.queue.ErrorCode;
import io.sluice.queue.SqsException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * A request's members in the JSON protocol's shape, read through getters that fail the way SQS
 * does. Query requests carry every scalar as a string, so numeric and boolean getters accept
 * strings too. A JSON null counts as absent.
 */
public final class Params {
    private final JsonObject json;

    public Params(JsonObject json) {
        this.json = json == null ? new JsonObject() : json;
    }

    /** The underlying tree, for members the getters do not cover. */
    public JsonObject json() {
        return json;
    }

    public boolean has(String name) {
        return json.getValue(name) != null;
    }

    /** @throws SqsException MISSING_PARAMETER when absent or empty */
    public String requiredString(String name) {
        String value = optionalString(name);
        if (value == null || value.isEmpty()) {
            throw SqsException.missingParameter(name);
        }
        return value;
    }

    public String optionalString(String name) {
        Object value = json.getValue(name);
        if (value == null || value instanceof String) {
            return (String) value;
        }
        throw wrongType(name, "a string");
    }

    /** @return the value, or null when absent */
    public Integer optionalInt(String name) {
        Object value = json.getValue(name);
        if (value == null) {
            return null;
        }
        if (!(value instanceof String) && !(value instanceof Number)) {
            throw wrongType(name, "a number");
        }
        try {
            if (value instanceof String s) {
                return Integer.parseInt(s); // strict: no spaces, fractions or exponents in Query strings
            }
            return new BigDecimal(value.toString()).intValueExact(); // JSON 5.0 is fine, 5.5 and 2^40 are not
        } catch (ArithmeticException | NumberFormatException e) {
            throw invalid(name, value, "must be an integer");
        }
    }

    /** @return the value, or null when absent; the strings "true"/"false" (any case) are accepted */
    public Boolean optionalBoolean(String name) {
        Object value = json.getValue(name);
        if (value == null || value instanceof Boolean) {
            return (Boolean) value;
        }
        if (value instanceof String s && (s.equalsIgnoreCase("true") || s.equalsIgnoreCase("false"))) {
            return Boolean.parseBoolean(s);
        }
        if (value instanceof String) {
            throw invalid(name, value, "must be a boolean");
        }
        throw wrongType(name, "a boolean");
    }

    /** @return an unmodifiable list, empty when absent */
    public List<String> stringList(String name) {
        List<String> out = new ArrayList<>();
        for (Object item : array(name)) {
            if (!(item instanceof String s)) {
                throw wrongType(name, "a list of strings");
            }
            out.add(s);
        }
        return Collections.unmodifiableList(out);
    }

    /** @return a modifiable map in the request's order (a LinkedHashMap), empty when absent */
    public Map<String, String> stringMap(String name) {
        Map<String, String> out = new LinkedHashMap<>();
        for (Map.Entry<String, Object> e : object(name)) {
            if (!(e.getValue() instanceof String s)) {
                throw wrongType(name, "a map of strings");
            }
            out.put(e.getKey(), s);
        }
        return out;
    }

    /** A map of structures, e.g. MessageAttributes: name → its value's members. Empty when absent. */
    public Map<String, Params> objectMap(String name) {
        Map<String, Params> out = new LinkedHashMap<>();
        for (Map.Entry<String, Object> e : object(name)) {
            if (!(e.getValue() instanceof JsonObject o)) {
                throw wrongType(name, "a map of structures");
            }
            out.put(e.getKey(), new Params(o));
        }
        return out;
    }

    /** A list of structures, e.g. batch Entries, in request order. Empty when absent. */
    public List<Params> objectList(String name) {
        List<Params> out = new ArrayList<>();
        for (Object item : array(name)) {
            if (!(item instanceof JsonObject o)) {
                throw wrongType(name, "a list of structures");
            }
            out.add(new Params(o));
        }
        return Collections.unmodifiableList(out);
    }

    @Override
    public String toString() {
        return json.encode();
    }

    private JsonArray array(String name) {
        return member(name, JsonArray.class, JsonArray::new, "a list");
    }

    private JsonObject object(String name) {
        return member(name, JsonObject.class, JsonObject::new, "a map");
    }

    /** The member as a {@code type}; {@code absent}'s value when it is not there; SerializationError when it is something else. */
    private <T> T member(String name, Class<T> type, Supplier<T> absent, String expected) {
        Object value = json.getValue(name);
        if (value == null) {
            return absent.get();
        }
        if (type.isInstance(value)) {
            return type.cast(value);
        }
        throw wrongType(name, expected);
    }

    private static SqsException invalid(String name, Object value, String reason) {
        return SqsException.invalidParameter(
                "Value " + value + " for parameter " + name + " is invalid. Reason: " + reason + ".");
    }

    /** A JSON member of the wrong type is a malformed request, as in SQS's JSON protocol. */
    private static SqsException wrongType(String name, String expected) {
        return new SqsException(
                ErrorCode.SERIALIZATION_ERROR,
                "The request could not be parsed: parameter " + name + " must be " + expected + ".");
    }
}
