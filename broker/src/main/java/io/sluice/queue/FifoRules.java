package io.sluice.queue;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/** FIFO send rules: group and deduplication ids, content-based deduplication, where a group lives. */
public final class FifoRules {
    private static final int MAX_ID_LENGTH = 128;

    private FifoRules() {}

    /**
     * Group and deduplication ids: 1 to 128 alphanumeric or punctuation characters. An absent id
     * is a missing parameter; a present but empty one is an invalid value, as in SQS.
     */
    public static void checkId(String parameter, String value) {
        if (value == null) {
            throw SqsException.missingParameter(parameter);
        }
        boolean ok = !value.isEmpty() && value.length() <= MAX_ID_LENGTH;
        for (int i = 0; ok && i < value.length(); i++) {
            char c = value.charAt(i);
            ok = c >= 0x21 && c <= 0x7E;
        }
        if (!ok) {
            throw SqsException.invalidParameter(
                    "Value " + value + " for parameter " + parameter + " is invalid." + " Reason: " + parameter
                            + " can only include alphanumeric and punctuation characters. 1 to 128 in length.");
        }
    }

    /**
     * The deduplication id a FIFO send is checked against: the explicit one, else the SHA-256 of
     * the body when ContentBasedDeduplication is on.
     */
    public static String deduplicationId(String explicit, String body, boolean contentBased) {
        if (explicit != null) {
            checkId("MessageDeduplicationId", explicit);
            return explicit;
        }
        if (!contentBased) {
            throw SqsException.invalidParameter("The queue should either have ContentBasedDeduplication enabled"
                    + " or MessageDeduplicationId provided explicitly");
        }
        try {
            byte[] hash = MessageDigest.getInstance("SHA-256").digest(body.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(hash);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }

    /**
     * The key a deduplication record is kept under: the id alone for queue-wide scope, the
     * group and the id for DeduplicationScope=messageGroup.
     */
    public static String dedupKey(String deduplicationId, String groupId, boolean perGroup) {
        return perGroup ? groupId + '\u0000' + deduplicationId : deduplicationId;
    }

    /** A group lives in one partition, so its order is kept by one loop; String.hashCode is the same on every JVM. */
    public static int partitionOf(String key, int partitions) {
        return Math.floorMod(key.hashCode(), partitions);
    }
}
