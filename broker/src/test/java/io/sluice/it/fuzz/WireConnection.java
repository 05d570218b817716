package io.sluice.it.fuzz;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.Closeable;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * One keep-alive HTTP/1.1 connection on a plain socket, writing requests byte for byte as the
 * fuzzer made them (an HTTP client library would refuse or repair most of them) and reading the
 * answer: status line, headers, then a Content-Length, chunked or read-to-close body.
 */
final class WireConnection implements Closeable {

    /** An answer as read from the wire; header names lower-cased. */
    record Answer(int status, Map<String, List<String>> headers, byte[] body) {
        String header(String name) {
            List<String> values = headers.get(name.toLowerCase(Locale.ROOT));
            return values == null || values.isEmpty() ? null : values.get(0);
        }

        boolean closes() {
            String connection = header("connection");
            return connection != null && connection.toLowerCase(Locale.ROOT).contains("close");
        }

        String bodyText() {
            return new String(body, StandardCharsets.UTF_8);
        }
    }

    /** The server closed (or reset) the connection before a complete answer. */
    static final class ClosedWithoutAnswer extends IOException {
        ClosedWithoutAnswer(String message, Throwable cause) {
            super(message, cause);
        }
    }

    private static final int MAX_ANSWER_BYTES = 8 * 1024 * 1024;

    private final String host;
    private final int port;
    private final int answerTimeoutMillis;
    private final long maxIdleNanos;
    private Socket socket;
    private InputStream in;
    private OutputStream out;
    private long lastUsed;

    /**
     * @param maxIdleMillis a connection unused for this long is replaced before the next request,
     *                      so that the server's idle timeout never races a request on a stale one
     */
    WireConnection(String host, int port, int answerTimeoutMillis, long maxIdleMillis) {
        this.host = host;
        this.port = port;
        this.answerTimeoutMillis = answerTimeoutMillis;
        this.maxIdleNanos = maxIdleMillis * 1_000_000L;
    }

    /**
     * Sends one request and reads its answer.
     *
     * @throws java.net.SocketTimeoutException no answer within the timeout: the connection hangs
     * @throws ClosedWithoutAnswer             the server closed the connection instead of answering
     */
    Answer exchange(FuzzRequest request) throws IOException {
        if (socket != null && System.nanoTime() - lastUsed > maxIdleNanos) {
            close();
        }
        if (socket == null) {
            open();
        }
        try {
            IOException writeFailure = null;
            try {
                request.writeTo(out);
                out.flush();
            } catch (IOException e) {
                // The server may answer and close before it has read everything (an oversized
                // head, say): its answer is still to be read.
                writeFailure = e;
            }
            Answer answer;
            try {
                answer = readAnswer(in, request.isHead());
            } catch (SocketException e) {
                ClosedWithoutAnswer closed =
                        new ClosedWithoutAnswer("connection reset instead of an answer: " + e.getMessage(), e);
                if (writeFailure != null) {
                    closed.addSuppressed(writeFailure);
                }
                throw closed;
            } catch (ClosedWithoutAnswer e) {
                if (writeFailure != null) {
                    e.addSuppressed(writeFailure);
                }
                throw e;
            }
            if (writeFailure != null || answer.closes() || request.closeAfter()) {
                close();
            }
            lastUsed = System.nanoTime();
            return answer;
        } catch (IOException | RuntimeException e) {
            close();
            throw e;
        }
    }

    private void open() throws IOException {
        Socket s = new Socket();
        s.setTcpNoDelay(true);
        s.setSoTimeout(answerTimeoutMillis);
        s.connect(new InetSocketAddress(host, port), answerTimeoutMillis);
        socket = s;
        in = new BufferedInputStream(s.getInputStream(), 16 * 1024);
        out = s.getOutputStream();
        lastUsed = System.nanoTime();
    }

    /** Reads one answer (after any 1xx ones) from a stream positioned at its status line. */
    static Answer readAnswer(InputStream in, boolean headRequest) throws IOException {
        while (true) {
            String statusLine = line(in);
            if (statusLine == null) {
                throw new ClosedWithoutAnswer("connection closed before an answer", null);
            }
            String[] parts = statusLine.split(" ", 3);
            // The server answers in the version of the request, even one it does not speak (HTTP/0.9).
            if (parts.length < 2 || !parts[0].startsWith("HTTP/")) {
                throw new IOException("not an HTTP status line: " + statusLine);
            }
            int status = Integer.parseInt(parts[1]);
            Map<String, List<String>> headers = new LinkedHashMap<>();
            String h;
            while ((h = line(in)) != null && !h.isEmpty()) {
                int colon = h.indexOf(':');
                if (colon > 0) {
                    headers.computeIfAbsent(
                                    h.substring(0, colon).trim().toLowerCase(Locale.ROOT), k -> new ArrayList<>())
                            .add(h.substring(colon + 1).trim());
                }
            }
            if (h == null) {
                throw new ClosedWithoutAnswer("connection closed inside the answer's head", null);
            }
            if (status >= 100 && status < 200) {
                continue; // 100 Continue before the real answer
            }
            byte[] body = headRequest || status == 204 || status == 304 ? new byte[0] : body(in, headers);
            boolean http10 = parts[0].equals("HTTP/1.0");
            Answer answer = new Answer(status, headers, body);
            if (http10 && !"keep-alive".equalsIgnoreCase(answer.header("connection"))) {
                Map<String, List<String>> closing = new LinkedHashMap<>(headers);
                closing.put("connection", List.of("close"));
                return new Answer(status, closing, body);
            }
            return answer;
        }
    }

    private static byte[] body(InputStream in, Map<String, List<String>> headers) throws IOException {
        List<String> te = headers.get("transfer-encoding");
        if (te != null && te.get(0).toLowerCase(Locale.ROOT).contains("chunked")) {
            ByteArrayOutputStream body = new ByteArrayOutputStream();
            while (true) {
                String sizeLine = line(in);
                if (sizeLine == null) {
                    throw new ClosedWithoutAnswer("connection closed inside a chunked answer", null);
                }
                int semi = sizeLine.indexOf(';');
                int size = Integer.parseInt((semi < 0 ? sizeLine : sizeLine.substring(0, semi)).trim(), 16);
                if (size == 0) {
                    String trailer;
                    while ((trailer = line(in)) != null && !trailer.isEmpty()) {
                        // trailers are not looked at
                    }
                    return body.toByteArray();
                }
                body.write(exactly(in, size));
                line(in);
            }
        }
        List<String> length = headers.get("content-length");
        if (length != null) {
            long n = Long.parseLong(length.get(0));
            if (n > MAX_ANSWER_BYTES) {
                throw new IOException("answer of " + n + " bytes");
            }
            return exactly(in, (int) n);
        }
        // Neither: the body runs to the end of the connection.
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        byte[] buf = new byte[8192];
        int n;
        while ((n = in.read(buf)) > 0) {
            body.write(buf, 0, n);
        }
        headers.put("connection", List.of("close"));
        return body.toByteArray();
    }

    private static byte[] exactly(InputStream in, int n) throws IOException {
        byte[] data = in.readNBytes(n);
        if (data.length < n) {
            throw new ClosedWithoutAnswer("connection closed inside the answer's body", new EOFException());
        }
        return data;
    }

    /** A CRLF- or LF-terminated line in ISO-8859-1, or null at the end of the stream before any byte. */
    private static String line(InputStream in) throws IOException {
        StringBuilder sb = new StringBuilder(64);
        int c;
        while ((c = in.read()) != -1) {
            if (c == '\n') {
                int len = sb.length();
                if (len > 0 && sb.charAt(len - 1) == '\r') {
                    sb.setLength(len - 1);
                }
                return sb.toString();
            }
            sb.append((char) c);
            if (sb.length() > 64 * 1024) {
                throw new IOException("answer line longer than 64 KiB");
            }
        }
        return sb.length() == 0 ? null : sb.toString();
    }

    @Override
    public void close() {
        if (socket != null) {
            try {
                socket.close();
            } catch (IOException ignored) {
                // closing anyway
            }
            socket = null;
            in = null;
            out = null;
        }
    }
}
