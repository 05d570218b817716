package io.sluice.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.sluice.queue.ErrorCode;
import io.sluice.queue.SqsException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Form and query-string decoding reads pairs in place; it must give what splitting on '&' and
 * '=' and decoding each part with the JDK's URLDecoder gives, and refuse what that refuses.
 */
class FormDecodingTest {

    @Test
    void decodesAsTheJdkDoes() {
        Random random = new Random(20261202);
        for (int i = 0; i < 5000; i++) {
            decodesAsTheJdkDoes(randomForm(random));
        }
    }

    /**
     * The JDK reads "%+1" as the byte 1 and "%-0" as the byte 0 (Integer.parseInt takes a sign):
     * that is not percent-encoding, and such a form is refused here whatever the JDK makes of it.
     * Every other form decodes as the JDK decodes it, or is refused where the JDK refuses it.
     */
    private static void decodesAsTheJdkDoes(String form) {
        if (form.contains("%+") || form.contains("%-")) {
            assertMalformed(form);
            return;
        }
        List<String> expected;
        try {
            expected = reference(form);
        } catch (IllegalArgumentException refused) {
            assertMalformed(form);
            return;
        }
        assertEquals(expected, decoded(form), form);
    }

    private static void assertMalformed(String form) {
        SqsException e = assertThrows(SqsException.class, () -> decoded(form), form);
        assertEquals(ErrorCode.MALFORMED_QUERY_STRING, e.code(), form);
    }

    @Test
    void plainPairsAreReadAsTheyAre() {
        assertEquals(List.of("a", "1", "b", "", "c", "x=y"), decoded("&a=1&&b&c=x=y&"));
        assertEquals(List.of("Message Body", "ä \u00e9/é"), decoded("Message+Body=%C3%A4+%c3%a9%2F%C3%A9"));
        assertEquals(List.of(), decoded(""));
    }

    @Test
    void aCutOrNonHexEscapeIsMalformed() {
        for (String bad : List.of("a=%", "a=%4", "a=b%4&c=d", "a=%G1", "a=%1g", "a=%+1", "a=%-0", "a=%\u0663\u0663")) {
            SqsException e = assertThrows(SqsException.class, () -> decoded(bad), bad);
            assertEquals(ErrorCode.MALFORMED_QUERY_STRING, e.code());
        }
    }

    /** Up to 40 characters, a fifth of them '%', among separators, hex digits, signs and non-ASCII. */
    private static String randomForm(Random random) {
        String chars = "+=&aZ09fFgG-_.~ \u00e9\u4e2d";
        StringBuilder form = new StringBuilder();
        int length = random.nextInt(41);
        for (int i = 0; i < length; i++) {
            form.append(random.nextInt(5) == 0 ? '%' : chars.charAt(random.nextInt(chars.length())));
        }
        return form.toString();
    }

    private static List<String> decoded(String form) {
        List<String> out = new ArrayList<>();
        RequestDecoder.forEachParameter(form, (name, value) -> {
            out.add(name);
            out.add(value);
        });
        return out;
    }

    /** The reader this replaced. */
    private static List<String> reference(String form) {
        List<String> out = new ArrayList<>();
        for (String pair : form.split("&")) {
            if (pair.isEmpty()) {
                continue;
            }
            int eq = pair.indexOf('=');
            out.add(URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8));
            out.add(eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
        }
        return out;
    }
}
