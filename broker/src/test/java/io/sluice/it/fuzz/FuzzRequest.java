package io.sluice.it.fuzz;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * One generated HTTP request, as bytes, with what its answer must look like.
 *
 * @param category   which generator made it (reported in the statistics and in failures)
 * @param head       request line and header lines up to and including the empty line
 * @param body       what follows the head, already framed (chunk-encoded when the head says so)
 * @param expected   the protocol the answer must be an SQS answer of
 * @param mayClose   the request is broken in a way that leaves the server nothing to answer (a
 *                   garbled chunk): closing the connection is an answer too
 * @param closeAfter bytes may follow the request the server reads as another one, or the server
 *                   closes after answering: the client starts a new connection afterwards
 */
record FuzzRequest(String category, byte[] head, Body body, Expected expected, boolean mayClose, boolean closeAfter) {

    /** What an answer must be. */
    enum Expected {
        /** An SQS answer of the AWS Query protocol: XML, errors as ErrorResponse. */
        QUERY,
        /** An SQS answer of the AWS JSON 1.0 protocol: JSON, errors with __type and x-amzn-query-error. */
        JSON,
        /** An SQS answer of either protocol (the request's head is garbled, its protocol unknowable). */
        EITHER,
        /** Not an SQS endpoint (/health): only the status is checked. */
        NONE
    }

    /** A body as segments, each repeated, so that megabytes are streamed rather than kept. */
    record Body(List<Segment> segments) {
        static final Body EMPTY = new Body(List.of());

        record Segment(byte[] bytes, int repeat) {}

        static Body of(byte[] bytes) {
            return bytes.length == 0 ? EMPTY : new Body(List.of(new Segment(bytes, 1)));
        }

        static Body of(String utf8) {
            return of(utf8.getBytes(StandardCharsets.UTF_8));
        }

        long length() {
            long n = 0;
            for (Segment s : segments) {
                n += (long) s.bytes.length * s.repeat;
            }
            return n;
        }

        /** The whole body as one array; only for small bodies. */
        byte[] bytes() {
            byte[] out = new byte[Math.toIntExact(length())];
            int at = 0;
            for (Segment s : segments) {
                for (int i = 0; i < s.repeat; i++) {
                    System.arraycopy(s.bytes, 0, out, at, s.bytes.length);
                    at += s.bytes.length;
                }
            }
            return out;
        }

        void writeTo(OutputStream out) throws IOException {
            for (Segment s : segments) {
                if (s.bytes.length == 0) {
                    continue;
                }
                if (s.repeat == 1) {
                    out.write(s.bytes);
                    continue;
                }
                // Repeated small units are written in blocks of about 64 KiB.
                int perBlock = Math.max(1, 65536 / s.bytes.length);
                byte[] block = new byte[s.bytes.length * Math.min(perBlock, s.repeat)];
                for (int i = 0; i * s.bytes.length < block.length; i++) {
                    System.arraycopy(s.bytes, 0, block, i * s.bytes.length, s.bytes.length);
                }
                int left = s.repeat;
                while (left > 0) {
                    int n = Math.min(left, block.length / s.bytes.length);
                    out.write(block, 0, n * s.bytes.length);
                    left -= n;
                }
            }
        }

        /** The body chunk-encoded in chunks of the given sizes (the last size repeats), with a last chunk. */
        Body chunked(int[] sizes, String extension, String trailer) {
            byte[] data = bytes();
            List<Segment> out = new ArrayList<>();
            int at = 0;
            int k = 0;
            while (at < data.length) {
                int size = Math.min(Math.max(1, sizes[Math.min(k++, sizes.length - 1)]), data.length - at);
                out.add(new Segment(
                        (Integer.toHexString(size) + extension + "\r\n").getBytes(StandardCharsets.ISO_8859_1), 1));
                byte[] chunk = new byte[size];
                System.arraycopy(data, at, chunk, 0, size);
                out.add(new Segment(chunk, 1));
                out.add(new Segment("\r\n".getBytes(StandardCharsets.ISO_8859_1), 1));
                at += size;
            }
            out.add(new Segment(("0\r\n" + trailer + "\r\n").getBytes(StandardCharsets.ISO_8859_1), 1));
            return new Body(out);
        }

        Body then(byte[] more) {
            List<Segment> out = new ArrayList<>(segments);
            out.add(new Segment(more, 1));
            return new Body(out);
        }
    }

    /** The same request with more header lines, put before the head's closing empty line. */
    FuzzRequest withHeaders(List<String> lines) {
        if (lines.isEmpty() || head.length < 2) {
            return this;
        }
        int end = head.length - (head[head.length - 2] == '\r' ? 2 : 1);
        StringBuilder extra = new StringBuilder();
        lines.forEach(l -> extra.append(l).append("\r\n"));
        byte[] more = Tree.latin1OrUtf8(extra.toString());
        byte[] out = new byte[head.length + more.length];
        System.arraycopy(head, 0, out, 0, end);
        System.arraycopy(more, 0, out, end, more.length);
        System.arraycopy(head, end, out, end + more.length, head.length - end);
        return new FuzzRequest(category, out, body, expected, mayClose, closeAfter);
    }

    /** The same request with more (already encoded) query parameters on its request line. */
    FuzzRequest withQuery(String parameters) {
        int lineEnd = 0;
        while (lineEnd < head.length && head[lineEnd] != '\n') {
            lineEnd++;
        }
        int firstSpace = -1;
        int lastSpace = -1;
        for (int i = 0; i < lineEnd; i++) {
            if (head[i] == ' ') {
                lastSpace = i;
                if (firstSpace < 0) {
                    firstSpace = i;
                }
            }
        }
        if (firstSpace < 0 || lastSpace <= firstSpace) {
            return this; // no request target to add to
        }
        boolean hasQuery = false;
        for (int i = firstSpace; i < lastSpace; i++) {
            hasQuery |= head[i] == '?';
        }
        byte[] more = ((hasQuery ? "&" : "?") + parameters).getBytes(StandardCharsets.ISO_8859_1);
        byte[] out = new byte[head.length + more.length];
        System.arraycopy(head, 0, out, 0, lastSpace);
        System.arraycopy(more, 0, out, lastSpace, more.length);
        System.arraycopy(head, lastSpace, out, lastSpace + more.length, head.length - lastSpace);
        return new FuzzRequest(category, out, body, expected, mayClose, closeAfter);
    }

    void writeTo(OutputStream out) throws IOException {
        if (body.length() == 0) {
            out.write(head);
            return;
        }
        if (body.length() <= 16 * 1024) {
            // One write for small requests: the server sees them in one read, as from most clients.
            byte[] all = new byte[head.length + (int) body.length()];
            System.arraycopy(head, 0, all, 0, head.length);
            System.arraycopy(body.bytes(), 0, all, head.length, (int) body.length());
            out.write(all);
            return;
        }
        out.write(head);
        body.writeTo(out);
    }

    boolean isHead() {
        return head.length >= 5
                && head[0] == 'H'
                && head[1] == 'E'
                && head[2] == 'A'
                && head[3] == 'D'
                && head[4] == ' ';
    }

    /** The request for a failure report: category, expectation, and the start of head and body, escaped. */
    String describe() {
        StringBuilder sb = new StringBuilder();
        sb.append('[').append(category).append("] expect ").append(expected);
        if (mayClose) {
            sb.append(", may close");
        }
        sb.append(", body ").append(body.length()).append(" bytes\n  ");
        escape(head, 1200, sb);
        if (body.length() > 0) {
            sb.append("\n  body: ");
            Body.Segment first = body.segments().get(0);
            escape(first.bytes(), 600, sb);
            if (body.segments().size() > 1 || first.repeat() > 1) {
                sb.append(" ...");
            }
        }
        return sb.toString();
    }

    /** Short, for jqwik's sample reports: category and the start of the request line. */
    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder(category).append(": ");
        escape(head, 80, sb);
        return sb.toString();
    }

    static void escape(byte[] bytes, int max, StringBuilder sb) {
        int n = Math.min(bytes.length, max);
        int stop = sb.length() + max;
        for (int i = 0; i < n && sb.length() < stop; i++) {
            int b = bytes[i] & 0xFF;
            if (b == '\r') {
                sb.append("\\r");
            } else if (b == '\n') {
                sb.append("\\n");
            } else if (b == '\\') {
                sb.append("\\\\");
            } else if (b < 0x20 || b >= 0x7F) {
                sb.append(String.format("\\x%02X", b));
            } else {
                sb.append((char) b);
            }
        }
        if (bytes.length > max) {
            sb.append("...(").append(bytes.length).append(" bytes)");
        }
    }
}
