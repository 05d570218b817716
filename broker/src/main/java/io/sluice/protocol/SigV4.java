package io.sluice.protocol;

import io.sluice.queue.ErrorCode;
import io.sluice.queue.SqsException;
import java.nio.charset.StandardCharsets;
import java.security.InvalidKeyException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.regex.Pattern;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * AWS Signature Version 4, as SQS checks it: the {@code Authorization} header form and the
 * presigned query-string form ({@code X-Amz-Signature} in the query). Checking happens in two
 * steps so that a request whose header alone decides (no authentication, a malformed header,
 * an unknown access key, a timestamp out of range) is refused before its body is read; the
 * signature itself, which covers the body, is checked once the body is there.
 */
public final class SigV4 {
    /** Runs of spaces in a signed header value, which canonicalisation folds into one. */
    private static final Pattern SPACES = Pattern.compile(" +");

    static final String ALGORITHM = "AWS4-HMAC-SHA256";
    private static final Duration MAX_SKEW = Duration.ofMinutes(15);
    private static final long MAX_PRESIGNED_EXPIRES_SECONDS = 7 * 24 * 3600;
    private static final DateTimeFormatter AMZ_DATE =
            DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'").withZone(ZoneOffset.UTC);
    private static final HexFormat HEX = HexFormat.of();

    /** An access key this node accepts, and the account its queues belong to. */
    public record Key(String accessKeyId, String secret, String accountId) {}

    /** A request whose header checks passed: what its signature must be checked against. */
    public record Pending(
            Key key,
            String amzDate,
            String scope,
            String signingDate,
            String region,
            String service,
            String canonicalWithoutPayload,
            String payloadHash,
            String signature) {}

    /** What a request looks like to the signature: its method, raw path and query, and headers by lower-case name. */
    public record Request(String method, String rawPath, String rawQuery, Function<String, List<String>> headers) {}

    private final Function<String, Key> keys;
    private final LongSupplier clockMillis;

    /** @param keys the accepted key for an access key id, or null when unknown */
    public SigV4(Function<String, Key> keys, LongSupplier clockMillis) {
        this.keys = keys;
        this.clockMillis = clockMillis;
    }

    /**
     * The checks the request line and headers decide.
     *
     * @throws SqsException MissingAuthenticationToken, IncompleteSignature, InvalidClientTokenId,
     *                      SignatureDoesNotMatch (signature expired) or RequestExpired
     */
    public Pending precheck(Request request) {
        Map<String, List<String>> query = parseQuery(request.rawQuery());
        String authorization = first(request.headers().apply("authorization"));
        if (authorization != null) {
            return fromHeader(request, query, authorization);
        }
        if (query.containsKey("X-Amz-Algorithm") || query.containsKey("X-Amz-Signature")) {
            return fromQuery(request, query);
        }
        throw new SqsException(ErrorCode.MISSING_AUTHENTICATION_TOKEN, "Request is missing Authentication Token");
    }

    /**
     * Checks the signature over the whole request, body included.
     *
     * @return the key that signed it
     * @throws SqsException SignatureDoesNotMatch
     */
    public Key verify(Pending p, byte[] body) {
        String actual = HEX.formatHex(sha256(body));
        String payloadHash = p.payloadHash() != null ? p.payloadHash() : actual;
        // A declared payload hash is part of what was signed, so it must also be the body's: else
        // the body could be swapped under a valid signature. An unsigned payload is only a bodiless one.
        boolean bodyMatches =
                payloadHash.equalsIgnoreCase(actual) || (payloadHash.equals("UNSIGNED-PAYLOAD") && body.length == 0);
        String canonicalRequest = p.canonicalWithoutPayload() + payloadHash;
        String stringToSign = ALGORITHM + "\n" + p.amzDate() + "\n" + p.scope() + "\n"
                + HEX.formatHex(sha256(canonicalRequest.getBytes(StandardCharsets.UTF_8)));
        byte[] signingKey = hmac(
                hmac(
                        hmac(
                                hmac(("AWS4" + p.key().secret()).getBytes(StandardCharsets.UTF_8), p.signingDate()),
                                p.region()),
                        p.service()),
                "aws4_request");
        byte[] expected = HEX.formatHex(hmac(signingKey, stringToSign)).getBytes(StandardCharsets.US_ASCII);
        if (!bodyMatches
                || !MessageDigest.isEqual(
                        expected, p.signature().toLowerCase(Locale.ROOT).getBytes(StandardCharsets.US_ASCII))) {
            throw new SqsException(
                    ErrorCode.SIGNATURE_DOES_NOT_MATCH,
                    "The request signature we calculated does not match"
                            + " the signature you provided. Check your AWS Secret Access Key and signing method."
                            + " Consult the service documentation for details.");
        }
        return p.key();
    }

    private Pending fromHeader(Request request, Map<String, List<String>> query, String authorization) {
        String value = authorization.trim();
        if (!value.startsWith(ALGORITHM + " ")) {
            throw incomplete("Authorization header requires the " + ALGORITHM + " algorithm.");
        }
        Map<String, String> parts = new TreeMap<>();
        for (String part : value.substring(ALGORITHM.length() + 1).split(",")) {
            int eq = part.indexOf('=');
            if (eq > 0) {
                parts.put(part.substring(0, eq).trim(), part.substring(eq + 1).trim());
            }
        }
        for (String required : List.of("Credential", "SignedHeaders", "Signature")) {
            if (!parts.containsKey(required) || parts.get(required).isEmpty()) {
                throw incomplete("Authorization header requires '" + required + "' parameter. Authorization="
                        + abbreviate(value));
            }
        }
        String amzDate = first(request.headers().apply("x-amz-date"));
        if (amzDate == null) {
            throw incomplete("Authorization header requires existence of either a 'X-Amz-Date' or a 'Date' header."
                    + " Authorization=" + abbreviate(value));
        }
        Instant signedAt = parseDate(amzDate);
        Instant now = Instant.ofEpochMilli(clockMillis.getAsLong());
        if (signedAt.isBefore(now.minus(MAX_SKEW))) {
            throw new SqsException(
                    ErrorCode.SIGNATURE_DOES_NOT_MATCH,
                    "Signature expired: " + amzDate
                            + " is now earlier than " + AMZ_DATE.format(now.minus(MAX_SKEW)) + " ("
                            + AMZ_DATE.format(now)
                            + " - 15 min.)");
        }
        if (signedAt.isAfter(now.plus(MAX_SKEW))) {
            throw new SqsException(
                    ErrorCode.SIGNATURE_DOES_NOT_MATCH,
                    "Signature not yet current: " + amzDate
                            + " is still later than " + AMZ_DATE.format(now.plus(MAX_SKEW)) + " ("
                            + AMZ_DATE.format(now)
                            + " + 15 min.)");
        }
        String[] scope = scope(parts.get("Credential"));
        Key key = known(scope[0]);
        return pending(request, query, key, amzDate, scope, parts.get("SignedHeaders"), null, parts.get("Signature"));
    }

    private Pending fromQuery(Request request, Map<String, List<String>> query) {
        for (String required : List.of(
                "X-Amz-Algorithm", "X-Amz-Credential", "X-Amz-Date", "X-Amz-SignedHeaders", "X-Amz-Signature")) {
            if (first(query.get(required)) == null) {
                throw incomplete("AWS query-string parameters must include '" + required + "'.");
            }
        }
        if (!ALGORITHM.equals(first(query.get("X-Amz-Algorithm")))) {
            throw incomplete("X-Amz-Algorithm only supports '" + ALGORITHM + "'.");
        }
        String amzDate = first(query.get("X-Amz-Date"));
        Instant signedAt = parseDate(amzDate);
        long expires = 900;
        String expiresValue = first(query.get("X-Amz-Expires"));
        if (expiresValue != null) {
            try {
                expires = Long.parseLong(expiresValue);
            } catch (NumberFormatException e) {
                throw incomplete("X-Amz-Expires should be a number.");
            }
            if (expires < 0 || expires > MAX_PRESIGNED_EXPIRES_SECONDS) {
                throw incomplete("X-Amz-Expires must be between 0 and " + MAX_PRESIGNED_EXPIRES_SECONDS + " seconds.");
            }
        }
        Instant now = Instant.ofEpochMilli(clockMillis.getAsLong());
        if (now.isAfter(signedAt.plusSeconds(expires)) || signedAt.isAfter(now.plus(MAX_SKEW))) {
            throw new SqsException(ErrorCode.REQUEST_EXPIRED, "Request has expired.");
        }
        String[] scope = scope(first(query.get("X-Amz-Credential")));
        Key key = known(scope[0]);
        return pending(
                request,
                query,
                key,
                amzDate,
                scope,
                first(query.get("X-Amz-SignedHeaders")),
                "X-Amz-Signature",
                first(query.get("X-Amz-Signature")));
    }

    /** What both forms leave for {@link #verify}: the canonical request but its payload hash, and the signature. */
    private static Pending pending(
            Request request,
            Map<String, List<String>> query,
            Key key,
            String amzDate,
            String[] scope,
            String signedHeadersText,
            String excludedParameter,
            String signature) {
        checkScopeDate(scope, amzDate);
        List<String> signedHeaders =
                List.of(signedHeadersText.toLowerCase(Locale.ROOT).split(";"));
        String canonical = canonical(request, query, signedHeaders, excludedParameter);
        String payloadHash = first(request.headers().apply("x-amz-content-sha256"));
        return new Pending(
                key,
                amzDate,
                String.join("/", List.of(scope).subList(1, 5)),
                scope[1],
                scope[2],
                scope[3],
                canonical,
                payloadHash,
                signature);
    }

    /** The canonical request up to, not including, the payload hash. */
    private static String canonical(
            Request request, Map<String, List<String>> query, List<String> signedHeaders, String excludedParameter) {
        StringBuilder sb = new StringBuilder(256);
        sb.append(request.method()).append('\n');
        sb.append(canonicalPath(request.rawPath())).append('\n');
        TreeMap<String, List<String>> sorted = new TreeMap<>();
        for (Map.Entry<String, List<String>> e : query.entrySet()) {
            if (e.getKey().equals(excludedParameter)) {
                continue;
            }
            List<String> values = new ArrayList<>();
            for (String v : e.getValue()) {
                values.add(encode(v));
            }
            values.sort(null);
            sorted.put(encode(e.getKey()), values);
        }
        boolean firstParam = true;
        for (Map.Entry<String, List<String>> e : sorted.entrySet()) {
            for (String v : e.getValue()) {
                if (!firstParam) {
                    sb.append('&');
                }
                firstParam = false;
                sb.append(e.getKey()).append('=').append(v);
            }
        }
        sb.append('\n');
        List<String> names = new ArrayList<>(signedHeaders);
        names.sort(null);
        for (String name : names) {
            List<String> values = request.headers().apply(name);
            sb.append(name).append(':');
            if (values != null) {
                for (int i = 0; i < values.size(); i++) {
                    if (i > 0) {
                        sb.append(',');
                    }
                    sb.append(SPACES.matcher(values.get(i).trim()).replaceAll(" "));
                }
            }
            sb.append('\n');
        }
        sb.append('\n').append(String.join(";", names)).append('\n');
        return sb.toString();
    }

    /** Each segment of the path as sent (already encoded once) is encoded again, as SigV4 asks of every service but S3. */
    private static String canonicalPath(String rawPath) {
        if (rawPath == null || rawPath.isEmpty()) {
            return "/";
        }
        List<String> segments = new ArrayList<>();
        for (String segment : rawPath.split("/", -1)) {
            segments.add(encode(segment));
        }
        return String.join("/", segments);
    }

    /** The query string's parameters, decoded, in order. */
    private static Map<String, List<String>> parseQuery(String rawQuery) {
        Map<String, List<String>> out = new LinkedHashMap<>();
        RequestDecoder.forEachParameter(
                rawQuery,
                (name, value) ->
                        out.computeIfAbsent(name, k -> new ArrayList<>()).add(value));
        return out;
    }

    /** RFC 3986 encoding: everything but unreserved characters, upper-case hex. */
    static String encode(String s) {
        byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
        StringBuilder sb = new StringBuilder(bytes.length + 8);
        for (byte b : bytes) {
            int c = b & 0xff;
            if ((c >= 'A' && c <= 'Z')
                    || (c >= 'a' && c <= 'z')
                    || (c >= '0' && c <= '9')
                    || c == '-'
                    || c == '_'
                    || c == '.'
                    || c == '~') {
                sb.append((char) c);
            } else {
                sb.append('%')
                        .append(Character.toUpperCase(Character.forDigit(c >> 4, 16)))
                        .append(Character.toUpperCase(Character.forDigit(c & 0xf, 16)));
            }
        }
        return sb.toString();
    }

    /** access key id / date / region / service / aws4_request */
    private static String[] scope(String credential) {
        String[] scope = credential.split("/");
        if (scope.length != 5 || !"aws4_request".equals(scope[4]) || scope[0].isEmpty()) {
            throw incomplete("Credential should be scoped to a valid region, not '" + credential + "'.");
        }
        return scope;
    }

    private Key known(String accessKeyId) {
        Key key = keys.apply(accessKeyId);
        if (key == null) {
            throw new SqsException(
                    ErrorCode.INVALID_CLIENT_TOKEN_ID, "The security token included in the request is invalid.");
        }
        return key;
    }

    private static void checkScopeDate(String[] scope, String amzDate) {
        if (!amzDate.startsWith(scope[1])) {
            throw new SqsException(
                    ErrorCode.SIGNATURE_DOES_NOT_MATCH,
                    "Date in Credential scope does not match YYYYMMDD"
                            + " from ISO-8601 version of date from HTTP: '" + scope[1] + "' != '"
                            + amzDate.substring(0, Math.min(8, amzDate.length())) + "', from '" + amzDate + "'.");
        }
    }

    private static Instant parseDate(String amzDate) {
        try {
            return Instant.from(AMZ_DATE.parse(amzDate));
        } catch (DateTimeParseException e) {
            throw incomplete("Date must be in ISO-8601 'basic format'. Got '" + amzDate + "'.");
        }
    }

    private static SqsException incomplete(String message) {
        return new SqsException(ErrorCode.INCOMPLETE_SIGNATURE, message);
    }

    private static String first(List<String> values) {
        return values == null || values.isEmpty() ? null : values.get(0);
    }

    private static String abbreviate(String s) {
        return s.length() > 64 ? s.substring(0, 64) + "..." : s;
    }

    private static byte[] sha256(byte[] data) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(data);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static byte[] hmac(byte[] key, String data) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
            return mac.doFinal(data.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException | InvalidKeyException e) {
            throw new IllegalStateException(e);
        }
    }
}
