package io.sluice.load;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The two wire formats of SQS, for building request bodies and reading replies.
 *
 * <ul>
 *   <li>{@link #JSON}: AWS JSON 1.0, {@code POST /} with {@code X-Amz-Target: AmazonSQS.<Action>} and a JSON body
 *       written by Jackson; replies are JSON.</li>
 *   <li>{@link #QUERY}: AWS Query, a form POST ({@code Action=SendMessage&QueueUrl=...&MessageBody=...&Version=2012-11-05})
 *       to {@code /}; replies are XML, read with the JDK's StAX parser ({@link Reply#xml}).</li>
 * </ul>
 *
 * A request is given in the JSON protocol's shape (a map of members; lists of entries as lists of maps,
 * queue attributes as a map); {@link #body} renders it in either format.
 */
enum SqsProtocol {
    JSON("application/x-amz-json-1.0"),
    QUERY("application/x-www-form-urlencoded");

    static final String API_VERSION = "2012-11-05";
    static final ObjectMapper MAPPER = new ObjectMapper();

    private final String contentType;

    SqsProtocol(String contentType) {
        this.contentType = contentType;
    }

    String contentType() {
        return contentType;
    }

    /** {@code AmazonSQS.<action>} for the JSON protocol's X-Amz-Target header, null for Query. */
    String target(String action) {
        return this == JSON ? "AmazonSQS." + action : null;
    }

    static SqsProtocol parse(String name) {
        return switch (name.trim().toLowerCase(Locale.ROOT)) {
            case "json" -> JSON;
            case "query" -> QUERY;
            default -> throw new IllegalArgumentException("protocol must be json or query, got '" + name + "'");
        };
    }

    String shortName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The request body of {@code action} with {@code members} (JSON shape) in this protocol. */
    String body(String action, Map<String, ?> members) {
        if (this == JSON) {
            try {
                return MAPPER.writeValueAsString(members);
            } catch (JsonProcessingException e) {
                throw new IllegalArgumentException("cannot write " + action + " as JSON: " + e.getMessage(), e);
            }
        }
        return form(action, members);
    }

    /** Reads a 200 reply of this protocol. */
    Reply reply(String body) {
        return this == JSON ? Reply.json(body) : Reply.xml(body);
    }

    /**
     * The Query form of a request: members as {@code Name=value}; a list of entries ({@code Entries}) as
     * {@code <Action>RequestEntry.<n>.<Member>=value}; a list of names ({@code AttributeNames}) as
     * {@code AttributeName.<n>=name}; queue attributes ({@code Attributes}) as {@code Attribute.<n>.Name/Value}.
     */
    private static String form(String action, Map<String, ?> members) {
        StringBuilder b = new StringBuilder(128);
        add(b, "Action", action);
        add(b, "Version", API_VERSION);
        for (Map.Entry<String, ?> member : members.entrySet()) {
            String key = member.getKey();
            Object value = member.getValue();
            if (value instanceof List<?> list) {
                String prefix = switch (key) {
                    case "Entries" -> action + "RequestEntry";
                    case "AttributeNames" -> "AttributeName";
                    case "MessageAttributeNames" -> "MessageAttributeName";
                    case "MessageSystemAttributeNames" -> "MessageSystemAttributeName";
                    default -> throw new IllegalArgumentException("no Query form for the list " + key);
                };
                for (int i = 0; i < list.size(); i++) {
                    String item = prefix + "." + (i + 1);
                    if (list.get(i) instanceof Map<?, ?> entry) {
                        for (Map.Entry<?, ?> field : entry.entrySet()) {
                            add(b, item + "." + field.getKey(), String.valueOf(field.getValue()));
                        }
                    } else {
                        add(b, item, String.valueOf(list.get(i)));
                    }
                }
            } else if (value instanceof Map<?, ?> map) {
                if (!key.equals("Attributes")) {
                    throw new IllegalArgumentException("no Query form for the map " + key);
                }
                int i = 1;
                for (Map.Entry<?, ?> attribute : map.entrySet()) {
                    add(b, "Attribute." + i + ".Name", String.valueOf(attribute.getKey()));
                    add(b, "Attribute." + i + ".Value", String.valueOf(attribute.getValue()));
                    i++;
                }
            } else if (value != null) {
                add(b, key, String.valueOf(value));
            }
        }
        return b.toString();
    }

    private static void add(StringBuilder b, String name, String value) {
        if (!b.isEmpty()) {
            b.append('&');
        }
        b.append(URLEncoder.encode(name, StandardCharsets.UTF_8))
                .append('=')
                .append(URLEncoder.encode(value, StandardCharsets.UTF_8));
    }
}
