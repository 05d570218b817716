package io.sluice.it.fuzz;

import io.sluice.it.fuzz.FuzzRequest.Body;
import io.sluice.it.fuzz.FuzzRequest.Expected;
import java.util.ArrayList;
import java.util.List;

/** Assembles a request's bytes: request line, header lines, framing, body; nothing is checked or repaired. */
final class HttpRequestBuilder {
    /** How the body's length is told. */
    enum Framing {
        CONTENT_LENGTH,
        CHUNKED,
        NONE
    }

    private final String hostHeader;
    String method = "POST";
    String target = "/";
    String version = "HTTP/1.1";
    boolean host = true;
    final List<String> headers = new ArrayList<>();
    Body body = Body.EMPTY;
    Framing framing = Framing.CONTENT_LENGTH;
    /** A Content-Length value written instead of the body's length (a lie, or no number at all). */
    String contentLengthOverride;

    int[] chunkSizes = {8192};
    String chunkExtension = "";
    String trailer = "";
    /** Line ends of the head: CRLF, or a bare LF as some clients write. */
    String eol = "\r\n";

    HttpRequestBuilder(String hostHeader) {
        this.hostHeader = hostHeader;
    }

    HttpRequestBuilder header(String name, String value) {
        headers.add(name + ": " + value);
        return this;
    }

    /** A header line as given, which need not be a valid header. */
    HttpRequestBuilder rawHeader(String line) {
        headers.add(line);
        return this;
    }

    HttpRequestBuilder body(Body b) {
        this.body = b;
        return this;
    }

    HttpRequestBuilder body(byte[] b) {
        this.body = Body.of(b);
        return this;
    }

    FuzzRequest build(String category, Expected expected, boolean mayClose, boolean closeAfter) {
        StringBuilder head = new StringBuilder(256);
        head.append(method)
                .append(' ')
                .append(target)
                .append(' ')
                .append(version)
                .append(eol);
        if (host) {
            head.append("Host: ").append(hostHeader).append(eol);
        }
        for (String h : headers) {
            head.append(h).append(eol);
        }
        Body framed = body;
        switch (framing) {
            case CONTENT_LENGTH ->
                head.append("Content-Length: ")
                        .append(contentLengthOverride != null ? contentLengthOverride : Long.toString(body.length()))
                        .append(eol);
            case CHUNKED -> {
                head.append("Transfer-Encoding: chunked").append(eol);
                framed = body.chunked(chunkSizes, chunkExtension, trailer);
            }
            case NONE -> {
                if (contentLengthOverride != null) {
                    head.append("Content-Length: ")
                            .append(contentLengthOverride)
                            .append(eol);
                }
            }
        }
        head.append(eol);
        return new FuzzRequest(category, Tree.latin1OrUtf8(head.toString()), framed, expected, mayClose, closeAfter);
    }
}
