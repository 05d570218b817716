package io.sluice.it.fuzz;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * A request's parameters before they are written in a protocol: a JSON-like tree, written as a
 * JSON 1.0 body or flattened into Query parameters ({@code Attribute.1.Name=...}) the way SQS
 * clients do, with the liberties a hostile client takes on the way.
 */
sealed interface Tree {

    record Str(String value) implements Tree {}

    /** Written verbatim into JSON, so it may be no valid JSON number at all (NaN, 01, 1e99999). */
    record Num(String literal) implements Tree {}

    record Bool(boolean value) implements Tree {}

    record Null() implements Tree {}

    record Arr(List<Tree> items) implements Tree {}

    record Obj(List<Member> members) implements Tree {}

    record Member(String name, Tree value) {}

    static Str str(String s) {
        return new Str(s);
    }

    static Obj obj(Member... members) {
        return new Obj(List.of(members));
    }

    static Member member(String name, Tree value) {
        return new Member(name, value);
    }

    // ------------------------------------------------------------------ JSON

    /** How a JSON body is written. */
    record JsonStyle(boolean escapeNonAscii, boolean rawControlCharacters, boolean spaces) {}

    static byte[] json(Tree tree, JsonStyle style) {
        StringBuilder sb = new StringBuilder();
        writeJson(tree, style, sb);
        return utf8(sb);
    }

    private static void writeJson(Tree tree, JsonStyle style, StringBuilder sb) {
        String sp = style.spaces ? " " : "";
        if (tree instanceof Str s) {
            jsonString(s.value, style, sb);
        } else if (tree instanceof Num n) {
            sb.append(n.literal);
        } else if (tree instanceof Bool b) {
            sb.append(b.value);
        } else if (tree instanceof Arr a) {
            sb.append('[');
            for (int i = 0; i < a.items.size(); i++) {
                if (i > 0) {
                    sb.append(',').append(sp);
                }
                writeJson(a.items.get(i), style, sb);
            }
            sb.append(']');
        } else if (tree instanceof Obj o) {
            sb.append('{');
            for (int i = 0; i < o.members.size(); i++) {
                if (i > 0) {
                    sb.append(',').append(sp);
                }
                jsonString(o.members.get(i).name, style, sb);
                sb.append(':').append(sp);
                writeJson(o.members.get(i).value, style, sb);
            }
            sb.append('}');
        } else {
            sb.append("null");
        }
    }

    private static void jsonString(String s, JsonStyle style, StringBuilder sb) {
        sb.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '"' || c == '\\') {
                sb.append('\\').append(c);
            } else if (c < 0x20 && !style.rawControlCharacters) {
                unicodeEscape(c, sb);
            } else if (Character.isSurrogate(c)
                    && !(Character.isHighSurrogate(c)
                            && i + 1 < s.length()
                            && Character.isLowSurrogate(s.charAt(i + 1)))) {
                unicodeEscape(c, sb); // a lone surrogate only exists escaped
            } else if (c >= 0x7F && style.escapeNonAscii) {
                unicodeEscape(c, sb);
            } else {
                sb.append(c);
            }
        }
        sb.append('"');
    }

    char[] HEX = "0123456789ABCDEF".toCharArray();
    char[] LOWER_HEX = "0123456789abcdef".toCharArray();

    private static void unicodeEscape(char c, StringBuilder sb) {
        sb.append("\\u")
                .append(HEX[(c >> 12) & 0xF])
                .append(HEX[(c >> 8) & 0xF])
                .append(HEX[(c >> 4) & 0xF])
                .append(HEX[c & 0xF]);
    }

    // ------------------------------------------------------------------ Query

    /** JSON list member → Query prefix of its items. */
    Map<String, String> QUERY_LISTS = Map.of(
            "AttributeNames", "AttributeName",
            "MessageAttributeNames", "MessageAttributeName",
            "MessageSystemAttributeNames", "MessageSystemAttributeName",
            "TagKeys", "TagKey",
            "AWSAccountIds", "AWSAccountId",
            "Actions", "ActionName");

    /** JSON map member → Query prefix, key field, value field. */
    Map<String, String[]> QUERY_MAPS = Map.of(
            "Attributes", new String[] {"Attribute", "Name", "Value"},
            "Tags", new String[] {"Tag", "Key", "Value"},
            "tags", new String[] {"Tag", "Key", "Value"},
            "MessageAttributes", new String[] {"MessageAttribute", "Name", "Value"},
            "MessageSystemAttributes", new String[] {"MessageSystemAttribute", "Name", "Value"});

    /** Batch action → Query prefix of its entries. */
    Map<String, String> QUERY_ENTRIES = Map.of(
            "SendMessageBatch", "SendMessageBatchRequestEntry",
            "DeleteMessageBatch", "DeleteMessageBatchRequestEntry",
            "ChangeMessageVisibilityBatch", "ChangeMessageVisibilityBatchRequestEntry");

    /** Query indexes a hostile client may write instead of 1, 2, 3. */
    List<String> ODD_INDEXES = List.of(
            "0",
            "-1",
            "01",
            "999999999",
            "1000000000",
            "2147483648",
            "1a",
            "",
            " 1",
            "1.5",
            "\u0661",
            "99999999999999999999");

    /**
     * Flattens a call's members into Query parameters, in order.
     *
     * @param oddIndexes probability of an odd index instead of the next one
     */
    static void flatten(String action, Obj params, Random random, double oddIndexes, List<String[]> out) {
        for (Member m : params.members) {
            flatten(action, m.name, m.value, random, oddIndexes, out);
        }
    }

    private static void flatten(
            String action, String name, Tree value, Random random, double oddIndexes, List<String[]> out) {
        if (value instanceof Str s) {
            out.add(new String[] {name, s.value});
        } else if (value instanceof Num n) {
            out.add(new String[] {name, n.literal});
        } else if (value instanceof Bool b) {
            out.add(new String[] {name, Boolean.toString(b.value)});
        } else if (value instanceof Arr a) {
            String prefix = QUERY_LISTS.getOrDefault(
                    name,
                    name.equals("Entries") && QUERY_ENTRIES.containsKey(action) ? QUERY_ENTRIES.get(action) : name);
            if (a.items.isEmpty()) {
                out.add(new String[] {name, ""}); // as botocore writes an empty list
            }
            for (int i = 0; i < a.items.size(); i++) {
                flatten(action, prefix + "." + index(i, random, oddIndexes), a.items.get(i), random, oddIndexes, out);
            }
        } else if (value instanceof Obj o) {
            flattenObject(action, name, o, random, oddIndexes, out);
        } else {
            out.add(new String[] {name, ""});
        }
    }

    private static void flattenObject(
            String action, String name, Obj o, Random random, double oddIndexes, List<String[]> out) {
        String[] map = QUERY_MAPS.get(name);
        if (map == null) {
            for (Member m : o.members) {
                flatten(action, name + "." + m.name, m.value, random, oddIndexes, out);
            }
            return;
        }
        if (o.members.isEmpty()) {
            out.add(new String[] {name, ""});
        }
        boolean attributeValues = name.equals("MessageAttributes") || name.equals("MessageSystemAttributes");
        for (int i = 0; i < o.members.size(); i++) {
            String item = map[0] + "." + index(i, random, oddIndexes) + ".";
            Member m = o.members.get(i);
            out.add(new String[] {item + map[1], m.name});
            if (attributeValues && m.value instanceof Obj attribute) {
                for (Member field : attribute.members) {
                    String queryField = field.name.equals("StringListValues")
                            ? "StringListValue"
                            : field.name.equals("BinaryListValues") ? "BinaryListValue" : field.name;
                    flatten(action, item + map[2] + "." + queryField, field.value, random, oddIndexes, out);
                }
            } else {
                flatten(action, item + map[2], m.value, random, oddIndexes, out);
            }
        }
    }

    private static String index(int i, Random random, double oddIndexes) {
        if (oddIndexes > 0 && random.nextDouble() < oddIndexes) {
            return ODD_INDEXES.get(random.nextInt(ODD_INDEXES.size()));
        }
        return Integer.toString(i + 1);
    }

    /** How Query parameters are percent-encoded. */
    enum FormStyle {
        /** As clients do: UTF-8, unreserved characters verbatim, spaces as %20. */
        STRICT,
        /** Spaces as '+', lower-case hex, '*' and '~' encoded. */
        LOOSE,
        /** Non-ASCII characters left raw (UTF-8 bytes on the wire), the rest as STRICT. */
        RAW_NON_ASCII
    }

    static String form(List<String[]> pairs, FormStyle style) {
        StringBuilder sb = new StringBuilder();
        for (String[] p : pairs) {
            if (sb.length() > 0) {
                sb.append('&');
            }
            percent(p[0], style, sb);
            sb.append('=');
            percent(p[1], style, sb);
        }
        return sb.toString();
    }

    /**
     * Percent-encodes in UTF-8; a lone surrogate becomes the three bytes a careless encoder
     * writes for it (ED A0 80 and the like), which no valid UTF-8 contains. Raw non-ASCII
     * characters come back as chars 0x80..0xFF standing for their UTF-8 bytes.
     */
    static void percent(String s, FormStyle style, StringBuilder sb) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if ((c >= 'a' && c <= 'z')
                    || (c >= 'A' && c <= 'Z')
                    || (c >= '0' && c <= '9')
                    || c == '-'
                    || c == '_'
                    || c == '.'
                    || (c == '~' && style != FormStyle.LOOSE)) {
                sb.append(c);
            } else if (c == ' ' && style == FormStyle.LOOSE) {
                sb.append('+');
            } else {
                byte[] bytes;
                if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                    bytes = s.substring(i, i + 2).getBytes(StandardCharsets.UTF_8);
                    i++;
                } else if (Character.isSurrogate(c)) {
                    bytes = new byte[] {
                        (byte) (0xE0 | (c >> 12)), (byte) (0x80 | ((c >> 6) & 0x3F)), (byte) (0x80 | (c & 0x3F))
                    };
                } else {
                    bytes = String.valueOf(c).getBytes(StandardCharsets.UTF_8);
                }
                for (byte b : bytes) {
                    if (style == FormStyle.RAW_NON_ASCII && c >= 0x80) {
                        sb.append((char) (b & 0xFF));
                    } else {
                        char[] hex = style == FormStyle.LOOSE ? LOWER_HEX : HEX;
                        sb.append('%').append(hex[(b >> 4) & 0xF]).append(hex[b & 0xF]);
                    }
                }
            }
        }
    }

    /** A string of chars 0..0xFF as the bytes they stand for; other chars as UTF-8. */
    static byte[] latin1OrUtf8(String s) {
        boolean latin1 = true;
        for (int i = 0; i < s.length() && latin1; i++) {
            latin1 = s.charAt(i) <= 0xFF;
        }
        if (latin1) {
            return s.getBytes(StandardCharsets.ISO_8859_1);
        }
        byte[] out;
        int n = 0;
        byte[] out4 = new byte[s.length() * 4];
        out = out4;
        for (int i = 0; i < s.length(); ) {
            int cp = s.codePointAt(i);
            i += Character.charCount(cp);
            if (cp <= 0xFF) {
                out[n++] = (byte) cp;
            } else {
                byte[] b = new String(Character.toChars(cp)).getBytes(StandardCharsets.UTF_8);
                System.arraycopy(b, 0, out, n, b.length);
                n += b.length;
            }
        }
        byte[] exact = new byte[n];
        System.arraycopy(out, 0, exact, 0, n);
        return exact;
    }

    private static byte[] utf8(StringBuilder sb) {
        return sb.toString().getBytes(StandardCharsets.UTF_8);
    }
}
