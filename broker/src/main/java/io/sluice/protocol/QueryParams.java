package io.sluice.protocol;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * Turns the Query protocol's flattened parameters ({@code Attribute.1.Name=...}) into the tree the
 * JSON protocol sends for the same call, so the rest of the broker reads a single request shape.
 */
final class QueryParams {
    /** Query prefix of an indexed list of strings → the JSON protocol's member name. */
    private static final Map<String, String> STRING_LISTS = Map.of(
            "AttributeName", "AttributeNames",
            "MessageAttributeName", "MessageAttributeNames",
            "MessageSystemAttributeName", "MessageSystemAttributeNames",
            "TagKey", "TagKeys",
            "AWSAccountId", "AWSAccountIds",
            "ActionName", "Actions");

    /** Query prefix of a map of message attribute values → the JSON protocol's member name. */
    private static final Map<String, String> VALUE_MAPS = Map.of(
            "MessageAttribute", "MessageAttributes",
            "MessageSystemAttribute", "MessageSystemAttributes");

    /** Batch entries: each is a small request of its own, converted by the same rules. */
    private static final Set<String> ENTRY_LISTS = Set.of(
            "SendMessageBatchRequestEntry",
            "DeleteMessageBatchRequestEntry",
            "ChangeMessageVisibilityBatchRequestEntry");

    /**
     * Query serialisers (botocore among them) send an empty list or map as its bare name with an
     * empty value, e.g. {@code Entries=} or {@code MessageAttributeNames=}. Both the JSON member
     * name and the Query prefix are recognised; the value becomes an empty list or map, so the
     * call is judged as SQS judges a request with no items (EmptyBatchRequest, "none requested").
     */
    private static final Map<String, String> EMPTY_LISTS = emptyListNames();

    private static final Map<String, String> EMPTY_MAPS = Map.of(
            "Attribute",
            "Attributes",
            "Attributes",
            "Attributes",
            "Tag",
            "Tags",
            "Tags",
            "Tags",
            "MessageAttribute",
            "MessageAttributes",
            "MessageAttributes",
            "MessageAttributes",
            "MessageSystemAttribute",
            "MessageSystemAttributes",
            "MessageSystemAttributes",
            "MessageSystemAttributes");

    private QueryParams() {}

    private static Map<String, String> emptyListNames() {
        Map<String, String> names = new HashMap<>();
        STRING_LISTS.forEach((prefix, member) -> {
            names.put(prefix, member);
            names.put(member, member);
        });
        ENTRY_LISTS.forEach(prefix -> names.put(prefix, "Entries"));
        names.put("Entries", "Entries");
        return Map.copyOf(names);
    }

    /**
     * @param flat   decoded parameter names and values, in arrival order
     * @param action the call's action; CreateQueue names its tag map "tags" in JSON, every other call "Tags"
     */
    static JsonObject toTree(Map<String, String> flat, SqsAction action) {
        JsonObject out = new JsonObject();
        // prefix → index N → the rest of the name after "prefix.N." ("" when nothing follows) → value
        Map<String, TreeMap<Integer, Map<String, String>>> groups = new LinkedHashMap<>();
        for (Map.Entry<String, String> e : flat.entrySet()) {
            String[] split = splitIndexed(e.getKey());
            if (split == null && e.getValue().isEmpty() && EMPTY_LISTS.containsKey(e.getKey())) {
                out.put(EMPTY_LISTS.get(e.getKey()), new JsonArray());
            } else if (split == null && e.getValue().isEmpty() && EMPTY_MAPS.containsKey(e.getKey())) {
                String member = EMPTY_MAPS.get(e.getKey());
                out.put(action == SqsAction.CREATE_QUEUE && member.equals("Tags") ? "tags" : member, new JsonObject());
            } else if (split == null) {
                out.put(e.getKey(), e.getValue());
            } else {
                groups.computeIfAbsent(split[0], k -> new TreeMap<>())
                        .computeIfAbsent(Integer.parseInt(split[1]), k -> new LinkedHashMap<>())
                        .put(split[2], e.getValue());
            }
        }
        groups.forEach((prefix, items) -> {
            if (STRING_LISTS.containsKey(prefix)) {
                out.put(STRING_LISTS.get(prefix), leafList(items));
            } else if (VALUE_MAPS.containsKey(prefix)) {
                out.put(VALUE_MAPS.get(prefix), valueMap(items));
            } else if (ENTRY_LISTS.contains(prefix)) {
                JsonArray entries = new JsonArray();
                items.values().forEach(fields -> entries.add(toTree(fields, null)));
                out.put("Entries", entries);
            } else if (prefix.equals("Attribute")) {
                out.put("Attributes", pairMap(items, "Name", "Value"));
            } else {
                out.put(action == SqsAction.CREATE_QUEUE ? "tags" : "Tags", pairMap(items, "Key", "Value"));
            }
        });
        return out;
    }

    /**
     * Splits "Prefix.N[.rest]" for the prefixes we convert, or returns null so the parameter is
     * kept verbatim (unknown prefix, or an index that is not a number).
     */
    private static String[] splitIndexed(String name) {
        int dot = name.indexOf('.');
        if (dot <= 0) {
            return null;
        }
        String prefix = name.substring(0, dot);
        if (!isListPrefix(prefix)) {
            return null;
        }
        int dot2 = name.indexOf('.', dot + 1);
        String index = dot2 < 0 ? name.substring(dot + 1) : name.substring(dot + 1, dot2);
        if (!isIndex(index)) {
            return null;
        }
        return new String[] {prefix, index, dot2 < 0 ? "" : name.substring(dot2 + 1)};
    }

    private static boolean isListPrefix(String prefix) {
        return STRING_LISTS.containsKey(prefix)
                || VALUE_MAPS.containsKey(prefix)
                || ENTRY_LISTS.contains(prefix)
                || prefix.equals("Attribute")
                || prefix.equals("Tag");
    }

    /** A decimal index that fits an int; anything else is not ours to interpret. */
    private static boolean isIndex(String s) {
        if (s.isEmpty() || s.length() > 9) {
            return false;
        }
        for (int i = 0; i < s.length(); i++) {
            if (s.charAt(i) < '0' || s.charAt(i) > '9') {
                return false;
            }
        }
        return true;
    }

    /** {@code Prefix.N=value} items in index order; items with trailing parts are not list leaves. */
    private static JsonArray leafList(TreeMap<Integer, Map<String, String>> items) {
        JsonArray list = new JsonArray();
        items.values().forEach(fields -> {
            String v = fields.get("");
            if (v != null) {
                list.add(v);
            }
        });
        return list;
    }

    /** {@code Prefix.N.Name / Prefix.N.Value} pairs as a map; later indexes win on repeated names. */
    private static JsonObject pairMap(TreeMap<Integer, Map<String, String>> items, String keyField, String valueField) {
        return keyedMap(items, keyField, fields -> fields.getOrDefault(valueField, ""));
    }

    /** {@code Prefix.N.Name} and {@code Prefix.N.Value.*} → name → MessageAttributeValue object. */
    private static JsonObject valueMap(TreeMap<Integer, Map<String, String>> items) {
        return keyedMap(items, "Name", QueryParams::attributeValue);
    }

    /** Each item with a {@code keyField} as key → {@code value} of the item; later indexes win. */
    private static JsonObject keyedMap(
            TreeMap<Integer, Map<String, String>> items, String keyField, Function<Map<String, String>, Object> value) {
        JsonObject map = new JsonObject();
        items.values().forEach(fields -> {
            String key = fields.get(keyField);
            if (key != null) {
                map.put(key, value.apply(fields));
            }
        });
        return map;
    }

    private static JsonObject attributeValue(Map<String, String> fields) {
        JsonObject value = new JsonObject();
        TreeMap<Integer, String> strings = new TreeMap<>();
        TreeMap<Integer, String> binaries = new TreeMap<>();
        fields.forEach((field, v) -> {
            switch (field) {
                case "Value.DataType" -> value.put("DataType", v);
                case "Value.StringValue" -> value.put("StringValue", v);
                case "Value.BinaryValue" -> value.put("BinaryValue", v);
                default -> {
                    // List values are reserved by SQS but still legal on the wire: keep them, in order.
                    collectListItem(field, "Value.StringListValue.", v, strings);
                    collectListItem(field, "Value.BinaryListValue.", v, binaries);
                }
            }
        });
        if (!strings.isEmpty()) {
            value.put("StringListValues", new JsonArray(new ArrayList<>(strings.values())));
        }
        if (!binaries.isEmpty()) {
            value.put("BinaryListValues", new JsonArray(new ArrayList<>(binaries.values())));
        }
        return value;
    }

    private static void collectListItem(String field, String prefix, String v, TreeMap<Integer, String> into) {
        if (field.startsWith(prefix) && isIndex(field.substring(prefix.length()))) {
            into.put(Integer.parseInt(field.substring(prefix.length())), v);
        }
    }
}
