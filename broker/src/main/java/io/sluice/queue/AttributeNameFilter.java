package io.sluice.queue;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The {@code MessageAttributeNames} of a receive: {@code All} or {@code .*} for every attribute,
 * {@code prefix.*} for those under a prefix, otherwise exact names.
 */
public final class AttributeNameFilter {
    private AttributeNameFilter() {}

    public static Map<String, MessageAttributeValue> select(
            Map<String, MessageAttributeValue> attributes, List<String> requested) {
        if (attributes.isEmpty() || requested.isEmpty()) {
            return Map.of();
        }
        Map<String, MessageAttributeValue> out = new LinkedHashMap<>();
        for (Map.Entry<String, MessageAttributeValue> e : attributes.entrySet()) {
            if (matches(e.getKey(), requested)) {
                out.put(e.getKey(), e.getValue());
            }
        }
        return out;
    }

    static boolean matches(String name, List<String> requested) {
        for (String r : requested) {
            if (r.equals("All") || r.equals(".*") || r.equals(name)) {
                return true;
            }
            if (r.endsWith(".*") && name.startsWith(r.substring(0, r.length() - 1))) {
                return true;
            }
        }
        return false;
    }
}
