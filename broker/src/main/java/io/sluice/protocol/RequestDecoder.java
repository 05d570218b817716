package io.sluice.protocol;

import io.sluice.queue.ErrorCode;
import io.sluice.queue.SqsException;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.Json;
import io.vertx.core.json.JsonObject;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.function.BiConsumer;
import java.util.regex.Pattern;

/**
 * Reads an HTTP request of either SQS wire protocol into an {@link SqsRequest}. It only knows
 * about strings and bytes, so it can be tested without a server.
 */
public final class RequestDecoder {
    private static final String TARGET_PREFIX = "AmazonSQS.";
    private static final String FORM_TYPE = "application/x-www-form-urlencoded";
    /** The classic Query style posts to the queue URL itself: /{account}/{queueName}. */
    private static final Pattern QUEUE_PATH = Pattern.compile("/[^/]+/[^/]+");

    private RequestDecoder() {}

    /**
     * @param path        request path, e.g. "/" or "/000000000000/orders"
     * @param rawQuery    the still percent-encoded query string, or null
     * @param contentType the Content-Type header, or null
     * @param amzTarget   the X-Amz-Target header; present (non-empty) means the JSON protocol
     * @param body        the request body, or null
     * @throws SqsException with the SQS error the client should see
     */
    public static SqsRequest decode(String path, String rawQuery, String contentType, String amzTarget, Buffer body) {
        if (protocolOf(amzTarget) == WireProtocol.JSON) {
            return decodeJson(amzTarget, body);
        }
        return decodeQuery(path, rawQuery, contentType, body);
    }

    /**
     * The protocol of a request with this X-Amz-Target header (null when absent): JSON when it has
     * a value. Errors found before decoding (an oversized body, a bad signature) are answered in
     * the same protocol as the decoded request would be.
     */
    public static WireProtocol protocolOf(String amzTarget) {
        return amzTarget != null && !amzTarget.isEmpty() ? WireProtocol.JSON : WireProtocol.QUERY;
    }

    private static SqsRequest decodeJson(String amzTarget, Buffer body) {
        String name = amzTarget.startsWith(TARGET_PREFIX) ? amzTarget.substring(TARGET_PREFIX.length()) : amzTarget;
        SqsAction action = amzTarget.startsWith(TARGET_PREFIX) ? SqsAction.named(name) : null;
        if (action == null) {
            throw invalidAction(name);
        }
        return new SqsRequest(WireProtocol.JSON, action, new Params(parseJsonObject(body)));
    }

    private static JsonObject parseJsonObject(Buffer body) {
        if (body == null || body.length() == 0) {
            return new JsonObject(); // some clients send nothing at all for calls without input members
        }
        Object value;
        try {
            value = Json.decodeValue(body);
        } catch (DecodeException e) {
            if (body.toString(StandardCharsets.UTF_8).isBlank()) {
                return new JsonObject();
            }
            throw new SqsException(ErrorCode.SERIALIZATION_ERROR, "The request body could not be parsed as JSON.");
        }
        if (value instanceof JsonObject object) {
            return object;
        }
        if (value instanceof Map<?, ?> map) {
            @SuppressWarnings("unchecked")
            Map<String, Object> members = (Map<String, Object>) map;
            return new JsonObject(members);
        }
        throw new SqsException(
                ErrorCode.SERIALIZATION_ERROR, "The request body could not be parsed: a JSON object was expected.");
    }

    private static SqsRequest decodeQuery(String path, String rawQuery, String contentType, Buffer body) {
        Map<String, String> flat = new LinkedHashMap<>();
        parseForm(rawQuery, flat);
        if (body != null && body.length() > 0 && isForm(contentType)) {
            parseForm(body.toString(StandardCharsets.UTF_8), flat); // the body wins over the URL
        }
        String name = flat.remove("Action");
        if (name == null || name.isEmpty()) {
            // SQS answers a Query request without an action (a bare GET of the endpoint or of a
            // queue URL, say) as an unknown operation: InvalidAction.
            throw new SqsException(
                    ErrorCode.INVALID_ACTION,
                    "The request must name an action: an Action parameter (Query) or an X-Amz-Target header (JSON).");
        }
        SqsAction action = SqsAction.named(name);
        if (action == null) {
            throw invalidAction(name);
        }
        JsonObject tree = QueryParams.toTree(flat, action);
        if (!tree.containsKey("QueueUrl") && path != null) {
            String trimmed = path.length() > 1 && path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
            if (QUEUE_PATH.matcher(trimmed).matches()) {
                tree.put("QueueUrl", trimmed);
            }
        }
        return new SqsRequest(WireProtocol.QUERY, action, new Params(tree));
    }

    /** Form bodies are only read as such when declared so; a missing Content-Type is tolerated. */
    private static boolean isForm(String contentType) {
        if (contentType == null || contentType.isBlank()) {
            return true;
        }
        int semi = contentType.indexOf(';');
        String mediaType = (semi < 0 ? contentType : contentType.substring(0, semi)).trim();
        return mediaType.toLowerCase(Locale.ROOT).equals(FORM_TYPE);
    }

    private static void parseForm(String encoded, Map<String, String> into) {
        forEachParameter(encoded, (name, value) -> {
            if (!name.isEmpty()) {
                into.put(name, value);
            }
        });
    }

    /**
     * Each name=value pair of a form-encoded string or query string, decoded, in order. Pairs are
     * read in place: a name or value without escapes is one substring of {@code encoded}.
     */
    static void forEachParameter(String encoded, BiConsumer<String, String> each) {
        if (encoded == null) {
            return;
        }
        int length = encoded.length();
        int start = 0;
        while (start < length) {
            int amp = encoded.indexOf('&', start);
            int end = amp < 0 ? length : amp;
            if (end > start) {
                int eq = start;
                while (eq < end && encoded.charAt(eq) != '=') {
                    eq++;
                }
                each.accept(percentDecode(encoded, start, eq), eq < end ? percentDecode(encoded, eq + 1, end) : "");
            }
            start = end + 1;
        }
    }

    /**
     * {@code s[from, to)} with '+' read as a space and each run of %XY escapes as UTF-8 bytes (a
     * malformed sequence becomes U+FFFD), as URLDecoder reads forms; an escape
     * that is cut short or not hexadecimal is a malformed query string.
     */
    private static String percentDecode(String s, int from, int to) {
        int i = from;
        while (i < to && s.charAt(i) != '%' && s.charAt(i) != '+') {
            i++;
        }
        if (i == to) {
            return s.substring(from, to);
        }
        StringBuilder out = new StringBuilder(to - from).append(s, from, i);
        byte[] bytes = null;
        while (i < to) {
            char c = s.charAt(i);
            if (c == '+') {
                out.append(' ');
                i++;
            } else if (c == '%') {
                if (bytes == null) {
                    bytes = new byte[(to - i) / 3];
                }
                int count = 0;
                while (i < to && s.charAt(i) == '%') {
                    if (i + 2 >= to) {
                        throw malformedEscape();
                    }
                    int high = hexDigit(s.charAt(i + 1));
                    int low = hexDigit(s.charAt(i + 2));
                    if (high < 0 || low < 0) {
                        throw malformedEscape();
                    }
                    bytes[count++] = (byte) (high << 4 | low);
                    i += 3;
                }
                out.append(new String(bytes, 0, count, StandardCharsets.UTF_8));
            } else {
                out.append(c);
                i++;
            }
        }
        return out.toString();
    }

    private static int hexDigit(char c) {
        if (c >= '0' && c <= '9') {
            return c - '0';
        }
        if (c >= 'a' && c <= 'f') {
            return c - 'a' + 10;
        }
        if (c >= 'A' && c <= 'F') {
            return c - 'A' + 10;
        }
        return -1;
    }

    private static SqsException malformedEscape() {
        return new SqsException(
                ErrorCode.MALFORMED_QUERY_STRING,
                "The request contains malformed percent-encoding and could not be parsed.");
    }

    private static SqsException invalidAction(String action) {
        return new SqsException(ErrorCode.INVALID_ACTION, "The action " + action + " is not valid for this endpoint.");
    }
}
