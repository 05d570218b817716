package io.sluice.queue;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Map;
import java.util.TreeMap;

/**
 * The checksums SQS returns and SDKs verify: MD5 of the body, and MD5 of message (or system)
 * attributes by AWS's algorithm: attributes sorted by name, each encoded as length-prefixed
 * name, length-prefixed data type, a transport byte (1 string, 2 binary) and the
 * length-prefixed value, lengths as 4-byte big-endian integers.
 */
public final class Md5 {
    private static final byte STRING_TRANSPORT = 1;
    private static final byte BINARY_TRANSPORT = 2;
    /**
     * One digest per thread, reused instead of one looked up and allocated per message (about
     * 200 of the 550 bytes hashing a 256-byte body allocated). Reset before every use.
     */
    private static final ThreadLocal<MessageDigest> DIGESTS = ThreadLocal.withInitial(Md5::newDigest);

    private Md5() {}

    /**
     * The text SQS returns for a body. Records keep the digest as two longs ({@link #bodyDigest},
     * {@link #hex}); tests compare that text with this one, formatted from the whole array.
     */
    static String ofBody(String body) {
        return HexFormat.of().formatHex(bodyDigest(body).array());
    }

    /**
     * The 16 bytes of the body's MD5, read as two big-endian longs by a holder that keeps them so
     * ({@link #hex} turns them back into SQS's text).
     */
    static ByteBuffer bodyDigest(String body) {
        return ByteBuffer.wrap(digest().digest(body.getBytes(StandardCharsets.UTF_8)));
    }

    /** The lowercase hex text of a digest kept as its first and second eight bytes: what SQS returns. */
    static String hex(long high, long low) {
        HexFormat hex = HexFormat.of();
        return hex.toHexDigits(high).concat(hex.toHexDigits(low));
    }

    /** Null when there are no attributes: SQS then omits the checksum. */
    public static String ofAttributes(Map<String, MessageAttributeValue> attributes) {
        if (attributes == null || attributes.isEmpty()) {
            return null;
        }
        MessageDigest md = digest();
        for (Map.Entry<String, MessageAttributeValue> e : new TreeMap<>(attributes).entrySet()) {
            MessageAttributeValue v = e.getValue();
            updateLengthPrefixed(md, e.getKey().getBytes(StandardCharsets.UTF_8));
            updateLengthPrefixed(md, v.dataType().getBytes(StandardCharsets.UTF_8));
            if (v.isBinary()) {
                md.update(BINARY_TRANSPORT);
                updateLengthPrefixed(md, v.binaryValue() == null ? new byte[0] : v.binaryValue());
            } else {
                md.update(STRING_TRANSPORT);
                updateLengthPrefixed(
                        md, (v.stringValue() == null ? "" : v.stringValue()).getBytes(StandardCharsets.UTF_8));
            }
        }
        return HexFormat.of().formatHex(md.digest());
    }

    private static void updateLengthPrefixed(MessageDigest md, byte[] bytes) {
        md.update(ByteBuffer.allocate(4).putInt(bytes.length).array());
        md.update(bytes);
    }

    private static MessageDigest digest() {
        MessageDigest md = DIGESTS.get();
        md.reset();
        return md;
    }

    private static MessageDigest newDigest() {
        try {
            return MessageDigest.getInstance("MD5");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has MD5", e);
        }
    }
}
