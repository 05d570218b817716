package io.sluice.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.vertx.core.json.JsonObject;
import java.io.ByteArrayInputStream;
import javax.xml.parsers.DocumentBuilderFactory;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.CharRange;
import net.jqwik.api.constraints.StringLength;
import org.w3c.dom.Element;

/**
 * Whatever a message body holds, a Query client's XML parser reads back the body itself, with only
 * the characters XML 1.0 cannot carry (control characters other than tab, LF and CR, U+FFFE,
 * U+FFFF, half a surrogate pair) replaced by U+FFFD.
 */
class QueryXmlEscapeTest {

    @Property(tries = 300)
    void aParserReadsBackTheBody(@ForAll @StringLength(max = 64) String body) throws Exception {
        assertEquals(carriable(body), bodyAsParsed(body));
    }

    /** Mostly markup and plain text, so the runs between escapes get exercised too. */
    @Property(tries = 300)
    void aParserReadsBackMarkupAndText(
            @ForAll @StringLength(max = 64) @CharRange(from = '\u0000', to = '\u007f') String body) throws Exception {
        assertEquals(carriable(body), bodyAsParsed(body));
    }

    private static String bodyAsParsed(String body) throws Exception {
        EncodedResponse r = ResponseEncoder.success(
                WireProtocol.QUERY, SqsAction.GET_QUEUE_URL, new JsonObject().put("QueueUrl", body), "x");
        DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
        f.setNamespaceAware(true);
        Element root = f.newDocumentBuilder()
                .parse(new ByteArrayInputStream(r.body().getBytes()))
                .getDocumentElement();
        return root.getElementsByTagName("QueueUrl").item(0).getTextContent();
    }

    /** The reference, written by code point rather than by char. */
    private static String carriable(String s) {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < s.length(); ) {
            int cp = s.codePointAt(i);
            boolean pair = Character.charCount(cp) == 2;
            boolean allowed = cp == '\t'
                    || cp == '\n'
                    || cp == '\r'
                    || (cp >= 0x20 && cp <= 0xD7FF)
                    || (cp >= 0xE000 && cp <= 0xFFFD)
                    || pair;
            out.appendCodePoint(allowed ? cp : 0xFFFD);
            i += Character.charCount(cp);
        }
        return out.toString();
    }
}
