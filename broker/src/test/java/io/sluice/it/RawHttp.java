package io.sluice.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.StringReader;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;
import javax.xml.parsers.DocumentBuilderFactory;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.xml.sax.InputSource;

/** Raw HTTP access to a node for the Query protocol and hand-made JSON requests. */
public final class RawHttp {

    public static final String NS = "http://queue.amazonaws.com/doc/2012-11-05/";
    public static final String JSON_CONTENT_TYPE = "application/x-amz-json-1.0";

    private final String baseUrl;
    private final HttpClient client = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();

    public RawHttp(String baseUrl) {
        this.baseUrl = baseUrl;
    }

    // ------------------------------------------------------------------ requests

    /** Form-encodes alternating name/value pairs. */
    public static String form(String... nameValues) {
        if (nameValues.length % 2 != 0) {
            throw new IllegalArgumentException("name/value pairs expected");
        }
        List<String> parts = new ArrayList<>();
        for (int i = 0; i < nameValues.length; i += 2) {
            parts.add(URLEncoder.encode(nameValues[i], StandardCharsets.UTF_8) + "="
                    + URLEncoder.encode(nameValues[i + 1], StandardCharsets.UTF_8));
        }
        return String.join("&", parts);
    }

    /** AWS Query request: form POST to / with Version added. */
    public HttpResponse<String> query(String... nameValues) {
        String[] withVersion = Arrays.copyOf(nameValues, nameValues.length + 2);
        withVersion[nameValues.length] = "Version";
        withVersion[nameValues.length + 1] = "2012-11-05";
        return postForm(form(withVersion));
    }

    public HttpResponse<String> postForm(String encodedBody) {
        return send(HttpRequest.newBuilder(URI.create(baseUrl + "/"))
                .timeout(Duration.ofSeconds(15))
                .header("Content-Type", "application/x-www-form-urlencoded; charset=utf-8")
                .POST(HttpRequest.BodyPublishers.ofString(encodedBody, StandardCharsets.UTF_8))
                .build());
    }

    /** AWS JSON 1.0 request with the given X-Amz-Target (null: header omitted). */
    public HttpResponse<String> json(String target, String body) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(baseUrl + "/"))
                .timeout(Duration.ofSeconds(15))
                .header("Content-Type", JSON_CONTENT_TYPE)
                .POST(HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8));
        if (target != null) {
            b.header("X-Amz-Target", target);
        }
        return send(b.build());
    }

    public HttpResponse<String> send(HttpRequest request) {
        try {
            return client.send(request, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        } catch (HttpTimeoutException e) {
            throw new AssertionError("request hung: no answer within the timeout (" + request.uri() + ")", e);
        } catch (IOException e) {
            throw new AssertionError("request failed without an HTTP answer: " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    /**
     * Sends a POST whose body is {@code size} bytes (prefix, then 'a' filler), on a raw socket, while
     * reading the answer concurrently: a server that rejects the request early (from Content-Length,
     * or while counting a chunked body) is seen answering even though the body is not yet sent.
     *
     * @return the HTTP status of the answer
     */
    public static int postOversized(
            int port, List<String> headers, String prefix, long size, boolean chunked, Duration answerWithin)
            throws IOException {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout((int) answerWithin.toMillis());
            OutputStream out = socket.getOutputStream();
            StringBuilder head = new StringBuilder("POST / HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\n");
            headers.forEach(h -> head.append(h).append("\r\n"));
            head.append(chunked ? "Transfer-Encoding: chunked\r\n" : "Content-Length: " + size + "\r\n");
            head.append("\r\n");
            out.write(head.toString().getBytes(StandardCharsets.US_ASCII));
            out.flush();

            Thread writer = new Thread(() -> writeBody(out, prefix, size, chunked), "oversized-writer");
            writer.setDaemon(true);
            writer.start();

            InputStream in = socket.getInputStream();
            String statusLine;
            try {
                statusLine = readLine(in);
            } catch (SocketTimeoutException e) {
                throw new AssertionError("no HTTP answer within " + answerWithin + " to an oversized request (hung)");
            } catch (IOException e) {
                throw new AssertionError("connection failed without an HTTP answer to an oversized request: " + e);
            }
            if (statusLine == null || !statusLine.startsWith("HTTP/1.")) {
                fail("connection closed without an HTTP answer to an oversized request (got: " + statusLine + ")");
            }
            return Integer.parseInt(statusLine.split(" ")[1]);
        }
    }

    private static void writeBody(OutputStream out, String prefix, long size, boolean chunked) {
        try {
            byte[] filler = new byte[64 * 1024];
            Arrays.fill(filler, (byte) 'a');
            byte[] first = prefix.getBytes(StandardCharsets.US_ASCII);
            long written = 0;
            if (first.length > 0) {
                writeChunk(out, first, first.length, chunked);
                written += first.length;
            }
            while (written < size) {
                int n = (int) Math.min(filler.length, size - written);
                writeChunk(out, filler, n, chunked);
                written += n;
            }
            if (chunked) {
                out.write("0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            }
            out.flush();
        } catch (IOException ignored) {
            // The server may close the connection once it has answered; that is the point.
        }
    }

    private static void writeChunk(OutputStream out, byte[] data, int len, boolean chunked) throws IOException {
        if (chunked) {
            out.write((Integer.toHexString(len) + "\r\n").getBytes(StandardCharsets.US_ASCII));
            out.write(data, 0, len);
            out.write("\r\n".getBytes(StandardCharsets.US_ASCII));
        } else {
            out.write(data, 0, len);
        }
    }

    private static String readLine(InputStream in) throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        int c;
        while ((c = in.read()) != -1) {
            if (c == '\n') {
                break;
            }
            if (c != '\r') {
                line.write(c);
            }
        }
        if (c == -1 && line.size() == 0) {
            return null;
        }
        return line.toString(StandardCharsets.US_ASCII);
    }

    // ------------------------------------------------------------------ XML

    public static Document xml(HttpResponse<String> response) {
        return xml(response.body());
    }

    public static Document xml(String body) {
        try {
            DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
            f.setNamespaceAware(true);
            f.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
            return f.newDocumentBuilder().parse(new InputSource(new StringReader(body)));
        } catch (Exception e) {
            throw new AssertionError("answer is not well-formed XML: " + e.getMessage() + "\n" + body, e);
        }
    }

    /** Asserts the document element's namespace and local name; returns it. */
    public static Element root(Document doc, String localName) {
        Element root = doc.getDocumentElement();
        assertEquals(localName, root.getLocalName(), "root element");
        assertEquals(NS, root.getNamespaceURI(), "namespace of " + localName);
        return root;
    }

    /** Direct children with this local name in the SQS namespace. */
    public static List<Element> children(Element parent, String localName) {
        List<Element> out = new ArrayList<>();
        for (Node n = parent.getFirstChild(); n != null; n = n.getNextSibling()) {
            if (n instanceof Element e && localName.equals(e.getLocalName())) {
                assertEquals(NS, e.getNamespaceURI(), "namespace of " + localName);
                out.add(e);
            }
        }
        return out;
    }

    /** The single direct child with this local name. */
    public static Element child(Element parent, String localName) {
        List<Element> list = children(parent, localName);
        assertEquals(
                1,
                list.size(),
                () -> "expected one <" + localName + "> in <" + parent.getLocalName() + ">, found " + list.size()
                        + " (children: " + childNames(parent) + ")");
        return list.get(0);
    }

    /** Text of the element reached by a path of local names from {@code parent}. */
    public static String text(Element parent, String... path) {
        Element e = parent;
        for (String p : path) {
            e = child(e, p);
        }
        return e.getTextContent();
    }

    public static String childNames(Element parent) {
        List<String> names = new ArrayList<>();
        for (Node n = parent.getFirstChild(); n != null; n = n.getNextSibling()) {
            if (n instanceof Element e) {
                names.add(e.getLocalName());
            }
        }
        return names.stream().collect(Collectors.joining(","));
    }

    /** The root element of a Query action's successful XML answer, after checking it is a 200. */
    public static Element queryOk(HttpResponse<String> r, String action) {
        assertEquals(200, r.statusCode(), () -> action + " failed: " + r.body());
        return root(xml(r), action + "Response");
    }

    /** The Error element of a Query error answer, after checking its status and code. */
    public static Element queryError(HttpResponse<String> r, int status, String code) {
        assertEquals(status, r.statusCode(), () -> "HTTP status; body: " + r.body());
        Element err = child(root(xml(r), "ErrorResponse"), "Error");
        assertEquals(code, text(err, "Code"), () -> "Error/Code; body: " + r.body());
        return err;
    }

    /** The message of a Query error answer, after checking its status and code. */
    public static String queryErrorMessage(HttpResponse<String> r, int status, String code) {
        return text(queryError(r, status, code), "Message");
    }
}
