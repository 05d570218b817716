package io.sluice.protocol;

import io.sluice.queue.ErrorCode;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.math.BigDecimal;
import java.util.Base64;
import java.util.Map;

/**
 * Renders results and errors as the Query protocol's XML. Results arrive in the JSON protocol's
 * shape; the few places where SQS's XML differs (maps as Name/Value pairs, lists as repeated,
 * singular elements) are translated here.
 */
final class QueryXml {
    static final String NAMESPACE = "http://queue.amazonaws.com/doc/2012-11-05/";
    private static final String PROLOG = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>";

    private final StringBuilder xml = new StringBuilder(512).append(PROLOG);
    private final String action;

    private QueryXml(String action) {
        this.action = action;
    }

    static String success(SqsAction action, JsonObject result, String requestId) {
        String name = action.wireName();
        QueryXml w = new QueryXml(name);
        w.xml.append('<')
                .append(name)
                .append("Response xmlns=\"")
                .append(NAMESPACE)
                .append("\">");
        // SQS always writes the Result element of an action with output members, even when empty.
        if (!result.isEmpty() || action.hasOutput()) {
            w.open(name + "Result");
            w.members(result);
            w.close(name + "Result");
        }
        w.open("ResponseMetadata");
        w.text("RequestId", requestId);
        w.close("ResponseMetadata");
        w.close(name + "Response");
        return w.xml.toString();
    }

    static String error(ErrorCode code, String message, String requestId) {
        QueryXml w = new QueryXml(null);
        w.xml.append("<ErrorResponse xmlns=\"").append(NAMESPACE).append("\">");
        w.open("Error");
        w.text("Type", code.senderFault() ? "Sender" : "Receiver");
        w.text("Code", code.queryCode());
        w.text("Message", message);
        w.xml.append("<Detail/>");
        w.close("Error");
        w.text("RequestId", requestId);
        w.close("ErrorResponse");
        return w.xml.toString();
    }

    private void members(JsonObject object) {
        for (Map.Entry<String, Object> e : object) {
            String key = e.getKey();
            Object value = e.getValue();
            if (value == null) {
                continue;
            }
            if (value instanceof JsonObject map && key.equals("Attributes")) {
                pairs(map, "Attribute", "Name", "Value");
            } else if (value instanceof JsonObject map && key.equals("Tags")) {
                pairs(map, "Tag", "Key", "Value");
            } else if (value instanceof JsonObject map && key.equals("MessageAttributes")) {
                messageAttributes(map);
            } else if (value instanceof JsonArray list) {
                // Query lists are "flattened": one element per item, no wrapper.
                String itemName = itemName(key);
                list.forEach(item -> element(itemName, item));
            } else {
                element(key, value);
            }
        }
    }

    private void element(String name, Object value) {
        if (value == null) {
            return;
        }
        if (value instanceof JsonObject object) {
            open(name);
            members(object);
            close(name);
        } else if (value instanceof JsonArray list) {
            list.forEach(item -> element(name, item));
        } else {
            text(name, scalar(value));
        }
    }

    private void pairs(JsonObject map, String element, String keyName, String valueName) {
        for (Map.Entry<String, Object> e : map) {
            open(element);
            text(keyName, e.getKey());
            element(valueName, e.getValue());
            close(element);
        }
    }

    /** name → MessageAttributeValue; SQS writes the value's DataType after its payload. */
    private void messageAttributes(JsonObject map) {
        for (Map.Entry<String, Object> e : map) {
            open("MessageAttribute");
            text("Name", e.getKey());
            if (e.getValue() instanceof JsonObject value) {
                open("Value");
                JsonObject payload = new JsonObject();
                value.forEach(m -> {
                    if (!m.getKey().equals("DataType")) {
                        payload.put(m.getKey(), m.getValue());
                    }
                });
                members(payload);
                element("DataType", value.getValue("DataType"));
                close("Value");
            } else {
                element("Value", e.getValue());
            }
            close("MessageAttribute");
        }
    }

    private String itemName(String listKey) {
        return switch (listKey) {
            case "QueueUrls", "queueUrls" -> "QueueUrl";
            case "Messages" -> "Message";
            case "Successful" -> action + "ResultEntry";
            case "Failed" -> "BatchResultErrorEntry";
            case "Results" -> "ListMessageMoveTasksResultEntry";
            case "StringListValues" -> "StringListValue";
            case "BinaryListValues" -> "BinaryListValue";
            default -> listKey;
        };
    }

    private static String scalar(Object value) {
        if (value instanceof Double || value instanceof Float) {
            return BigDecimal.valueOf(((Number) value).doubleValue())
                    .stripTrailingZeros()
                    .toPlainString();
        }
        if (value instanceof BigDecimal d) {
            return d.toPlainString();
        }
        if (value instanceof byte[] bytes) {
            return Base64.getEncoder().encodeToString(bytes);
        }
        if (value instanceof Buffer buffer) {
            return Base64.getEncoder().encodeToString(buffer.getBytes());
        }
        return String.valueOf(value); // strings, integers, booleans (true/false), instants
    }

    private void open(String name) {
        xml.append('<').append(name).append('>');
    }

    private void close(String name) {
        xml.append("</").append(name).append('>');
    }

    private void text(String name, String text) {
        open(name);
        escape(text == null ? "" : text);
        close(name);
    }

    /**
     * Besides markup characters, CR is escaped: XML parsers would otherwise turn it into LF. A
     * character XML 1.0 cannot carry at all, escaped or not (a control character, U+FFFE, U+FFFF,
     * half a surrogate pair), becomes U+FFFD: an error message quoting a client's NUL must still be
     * a document the client can parse.
     */
    private void escape(String s) {
        int n = s.length();
        int plainFrom = 0; // characters from here to i need no escaping: appended in one copy
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            if (c >= 0x20 && c < Character.MIN_SURROGATE && c != '&' && c != '<' && c != '>' && c != '"') {
                continue;
            }
            if (c == '\t' || c == '\n') {
                continue;
            }
            if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(s.charAt(i + 1))) {
                i++;
                continue;
            }
            if (c > Character.MAX_SURROGATE && c < 0xFFFE) {
                continue;
            }
            xml.append(s, plainFrom, i);
            plainFrom = i + 1;
            switch (c) {
                case '&' -> xml.append("&amp;");
                case '<' -> xml.append("&lt;");
                case '>' -> xml.append("&gt;");
                case '"' -> xml.append("&quot;");
                case '\r' -> xml.append("&#xD;");
                default -> xml.append('\uFFFD'); // a control character, U+FFFE, U+FFFF, half a surrogate pair
            }
        }
        xml.append(s, plainFrom, n);
    }
}
