package io.sluice.it;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.function.Executable;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.MessageAttributeValue;
import software.amazon.awssdk.services.sqs.model.ReceiveMessageRequest;

/**
 * Assertions and helpers shared by the integration tests.
 *
 * <p>Error codes: the SQS client of SDK v2 is "awsQueryCompatible", so
 * {@code awsErrorDetails().errorCode()} is the Query-protocol code taken from the
 * {@code x-amzn-query-error} header (e.g. {@code AWS.SimpleQueueService.NonExistentQueue}),
 * while the exception class is chosen from the JSON {@code __type} shape name
 * (e.g. {@code QueueDoesNotExistException}). Both are asserted.
 */
public final class SqsAssert {

    // Query-protocol codes, as Amazon's model declares them (awsQueryError trait).
    public static final String NON_EXISTENT_QUEUE = "AWS.SimpleQueueService.NonExistentQueue";
    public static final String QUEUE_ALREADY_EXISTS = "QueueAlreadyExists";
    public static final String QUEUE_DELETED_RECENTLY = "AWS.SimpleQueueService.QueueDeletedRecently";
    public static final String PURGE_QUEUE_IN_PROGRESS = "AWS.SimpleQueueService.PurgeQueueInProgress";
    public static final String EMPTY_BATCH_REQUEST = "AWS.SimpleQueueService.EmptyBatchRequest";
    public static final String TOO_MANY_ENTRIES = "AWS.SimpleQueueService.TooManyEntriesInBatchRequest";
    public static final String IDS_NOT_DISTINCT = "AWS.SimpleQueueService.BatchEntryIdsNotDistinct";
    public static final String INVALID_BATCH_ENTRY_ID = "AWS.SimpleQueueService.InvalidBatchEntryId";
    public static final String BATCH_REQUEST_TOO_LONG = "AWS.SimpleQueueService.BatchRequestTooLong";
    public static final String INVALID_ATTRIBUTE_NAME = "InvalidAttributeName";
    public static final String INVALID_ATTRIBUTE_VALUE = "InvalidAttributeValue";
    public static final String INVALID_MESSAGE_CONTENTS = "InvalidMessageContents";
    public static final String INVALID_PARAMETER_VALUE = "InvalidParameterValue";
    public static final String MISSING_PARAMETER = "MissingParameter";
    public static final String OVER_LIMIT = "OverLimit";
    public static final String RECEIPT_HANDLE_IS_INVALID = "ReceiptHandleIsInvalid";

    private SqsAssert() {}

    /**
     * Runs {@code call}, expects an SQS error of the given exception class, HTTP status (one of
     * {@code statuses}) and error code, and returns the exception.
     */
    public static <T extends AwsServiceException> T assertSqsError(
            Class<T> type, String code, int[] statuses, Executable call) {
        AwsServiceException e =
                assertThrows(AwsServiceException.class, call, () -> "expected " + type.getSimpleName() + " / " + code);
        String seen = describe(e);
        assertTrue(type.isInstance(e), () -> "expected exception " + type.getSimpleName() + " but got " + seen);
        assertEquals(code, e.awsErrorDetails().errorCode(), () -> "error code; got " + seen);
        assertTrue(
                Arrays.stream(statuses).anyMatch(s -> s == e.statusCode()),
                () -> "HTTP status should be one of " + Arrays.toString(statuses) + "; got " + seen);
        assertNotNull(e.awsErrorDetails().errorMessage(), () -> "error message missing; got " + seen);
        return type.cast(e);
    }

    public static <T extends AwsServiceException> T assertSqsError(
            Class<T> type, String code, int status, Executable call) {
        return assertSqsError(type, code, new int[] {status}, call);
    }

    public static String describe(AwsServiceException e) {
        return e.getClass().getSimpleName() + "[status=" + e.statusCode()
                + ", code="
                + (e.awsErrorDetails() == null ? null : e.awsErrorDetails().errorCode())
                + ", message="
                + (e.awsErrorDetails() == null ? null : e.awsErrorDetails().errorMessage()) + "]";
    }

    // ---------------------------------------------------------------- MD5 (AWS algorithm)

    public static String md5Hex(byte[] data) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("MD5").digest(data));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    public static String md5OfBody(String body) {
        return md5Hex(body.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * MD5 of message attributes as SQS computes it: attributes sorted by name; for each, the name,
     * the data type (each as 4-byte big-endian length + UTF-8 bytes), one transport byte (1 string,
     * 2 binary) and the value (length + bytes).
     */
    public static String md5OfAttributes(Map<String, MessageAttributeValue> attributes) {
        List<byte[]> parts = new ArrayList<>();
        for (Map.Entry<String, MessageAttributeValue> e : new TreeMap<>(attributes).entrySet()) {
            MessageAttributeValue v = e.getValue();
            parts.add(lengthPrefixed(e.getKey().getBytes(StandardCharsets.UTF_8)));
            parts.add(lengthPrefixed(v.dataType().getBytes(StandardCharsets.UTF_8)));
            if (v.stringValue() != null) {
                parts.add(new byte[] {1});
                parts.add(lengthPrefixed(v.stringValue().getBytes(StandardCharsets.UTF_8)));
            } else {
                parts.add(new byte[] {2});
                parts.add(lengthPrefixed(v.binaryValue().asByteArray()));
            }
        }
        int total = parts.stream().mapToInt(p -> p.length).sum();
        ByteBuffer all = ByteBuffer.allocate(total);
        parts.forEach(all::put);
        return md5Hex(all.array());
    }

    private static byte[] lengthPrefixed(byte[] bytes) {
        return ByteBuffer.allocate(4 + bytes.length)
                .putInt(bytes.length)
                .put(bytes)
                .array();
    }

    // ---------------------------------------------------------------- receive helpers

    /** One short poll, up to 10 messages. With sampling off it sees every partition. */
    public static List<Message> receive(SqsClient sqs, String queueUrl) {
        return sqs.receiveMessage(
                        r -> r.queueUrl(queueUrl).maxNumberOfMessages(10).waitTimeSeconds(0))
                .messages();
    }

    public static List<Message> receive(SqsClient sqs, Consumer<ReceiveMessageRequest.Builder> request) {
        return sqs.receiveMessage(request).messages();
    }

    /** Short poll that must return exactly one message. */
    public static Message receiveOne(SqsClient sqs, String queueUrl) {
        List<Message> messages = receive(sqs, queueUrl);
        assertEquals(1, messages.size(), () -> "expected exactly one message, got " + messages);
        return messages.get(0);
    }

    /** Short poll that must return nothing. */
    public static void assertNothingReceivable(SqsClient sqs, String queueUrl) {
        List<Message> messages = receive(sqs, queueUrl);
        assertTrue(messages.isEmpty(), () -> "expected no receivable message, got " + messages);
    }

    /** Short-polls (with the given request settings) until a message arrives; returns it. */
    public static Message awaitMessage(SqsClient sqs, String queueUrl, Duration atMost) {
        List<Message> got = await().atMost(atMost)
                .pollInterval(Duration.ofMillis(50))
                .until(
                        () -> receive(
                                sqs,
                                r -> r.queueUrl(queueUrl)
                                        .maxNumberOfMessages(1)
                                        .messageSystemAttributeNamesWithStrings("All")),
                        list -> !list.isEmpty());
        return got.get(0);
    }

    /** Awaits a queue attribute (the approximate counters may lag) reaching the expected value. */
    public static void awaitAttribute(BrokerExtension broker, String queueUrl, String name, String expected) {
        try {
            // Asked at once and then every 10 ms: a test that waits for a count before each of many
            // requests (ShortPollSamplingTest) would otherwise spend most of its time waiting.
            await().atMost(Duration.ofSeconds(3))
                    .pollDelay(Duration.ZERO)
                    .pollInterval(Duration.ofMillis(10))
                    .until(() -> expected.equals(broker.attribute(queueUrl, name)));
        } catch (ConditionTimeoutException e) {
            fail("queue attribute " + name + " expected " + expected + " but was " + broker.attribute(queueUrl, name));
        }
    }

    public static void assertNotBlank(String s, String what) {
        assertNotNull(s, what + " missing");
        assertFalse(s.isBlank(), what + " blank");
    }
}
