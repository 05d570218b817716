package io.sluice.queue;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/** Queue attribute names, SQS's defaults and ranges, and the rules for setting and reading them. */
public final class QueueAttributes {
    public static final String VISIBILITY_TIMEOUT = "VisibilityTimeout";
    public static final String DELAY_SECONDS = "DelaySeconds";
    public static final String MAXIMUM_MESSAGE_SIZE = "MaximumMessageSize";
    public static final String MESSAGE_RETENTION_PERIOD = "MessageRetentionPeriod";
    public static final String RECEIVE_MESSAGE_WAIT_TIME_SECONDS = "ReceiveMessageWaitTimeSeconds";
    public static final String POLICY = "Policy";
    public static final String REDRIVE_POLICY = "RedrivePolicy";
    public static final String REDRIVE_ALLOW_POLICY = "RedriveAllowPolicy";
    public static final String KMS_MASTER_KEY_ID = "KmsMasterKeyId";
    public static final String KMS_DATA_KEY_REUSE_PERIOD_SECONDS = "KmsDataKeyReusePeriodSeconds";
    public static final String SQS_MANAGED_SSE_ENABLED = "SqsManagedSseEnabled";
    public static final String FIFO_QUEUE = "FifoQueue";
    public static final String CONTENT_BASED_DEDUPLICATION = "ContentBasedDeduplication";
    public static final String DEDUPLICATION_SCOPE = "DeduplicationScope";
    public static final String FIFO_THROUGHPUT_LIMIT = "FifoThroughputLimit";

    public static final String APPROXIMATE_NUMBER_OF_MESSAGES = "ApproximateNumberOfMessages";
    public static final String APPROXIMATE_NUMBER_OF_MESSAGES_NOT_VISIBLE = "ApproximateNumberOfMessagesNotVisible";
    public static final String APPROXIMATE_NUMBER_OF_MESSAGES_DELAYED = "ApproximateNumberOfMessagesDelayed";
    public static final String CREATED_TIMESTAMP = "CreatedTimestamp";
    public static final String LAST_MODIFIED_TIMESTAMP = "LastModifiedTimestamp";
    public static final String QUEUE_ARN = "QueueArn";

    /** Integer attributes and their inclusive ranges. */
    private static final Map<String, long[]> RANGES = Map.of(
            VISIBILITY_TIMEOUT, new long[] {0, 43_200},
            DELAY_SECONDS, new long[] {0, 900},
            MAXIMUM_MESSAGE_SIZE, new long[] {1_024, 1_048_576},
            MESSAGE_RETENTION_PERIOD, new long[] {60, 1_209_600},
            RECEIVE_MESSAGE_WAIT_TIME_SECONDS, new long[] {0, 20},
            KMS_DATA_KEY_REUSE_PERIOD_SECONDS, new long[] {60, 86_400});

    private static final Set<String> SETTABLE = Set.of(
            VISIBILITY_TIMEOUT,
            DELAY_SECONDS,
            MAXIMUM_MESSAGE_SIZE,
            MESSAGE_RETENTION_PERIOD,
            RECEIVE_MESSAGE_WAIT_TIME_SECONDS,
            POLICY,
            REDRIVE_POLICY,
            REDRIVE_ALLOW_POLICY,
            KMS_MASTER_KEY_ID,
            KMS_DATA_KEY_REUSE_PERIOD_SECONDS,
            SQS_MANAGED_SSE_ENABLED);
    private static final Set<String> FIFO_ONLY =
            Set.of(FIFO_QUEUE, CONTENT_BASED_DEDUPLICATION, DEDUPLICATION_SCOPE, FIFO_THROUGHPUT_LIMIT);
    private static final List<String> COUNTS = List.of(
            APPROXIMATE_NUMBER_OF_MESSAGES,
            APPROXIMATE_NUMBER_OF_MESSAGES_NOT_VISIBLE,
            APPROXIMATE_NUMBER_OF_MESSAGES_DELAYED);
    /** The order GetQueueAttributes(All) reports in. */
    private static final List<String> REPORT_ORDER = List.of(
            QUEUE_ARN,
            APPROXIMATE_NUMBER_OF_MESSAGES,
            APPROXIMATE_NUMBER_OF_MESSAGES_NOT_VISIBLE,
            APPROXIMATE_NUMBER_OF_MESSAGES_DELAYED,
            CREATED_TIMESTAMP,
            LAST_MODIFIED_TIMESTAMP,
            VISIBILITY_TIMEOUT,
            MAXIMUM_MESSAGE_SIZE,
            MESSAGE_RETENTION_PERIOD,
            DELAY_SECONDS,
            RECEIVE_MESSAGE_WAIT_TIME_SECONDS,
            POLICY,
            REDRIVE_POLICY,
            REDRIVE_ALLOW_POLICY,
            KMS_MASTER_KEY_ID,
            KMS_DATA_KEY_REUSE_PERIOD_SECONDS,
            SQS_MANAGED_SSE_ENABLED,
            FIFO_QUEUE,
            CONTENT_BASED_DEDUPLICATION,
            DEDUPLICATION_SCOPE,
            FIFO_THROUGHPUT_LIMIT);

    private QueueAttributes() {}

    /** SQS's default for an attribute not set, or null when SQS then leaves it out. */
    static String defaultValue(String name, boolean fifo) {
        return switch (name) {
            case VISIBILITY_TIMEOUT -> "30";
            case DELAY_SECONDS, RECEIVE_MESSAGE_WAIT_TIME_SECONDS -> "0";
            case MAXIMUM_MESSAGE_SIZE -> "1048576";
            case MESSAGE_RETENTION_PERIOD -> "345600";
            case SQS_MANAGED_SSE_ENABLED -> "true";
            case FIFO_QUEUE -> fifo ? "true" : null;
            case CONTENT_BASED_DEDUPLICATION -> fifo ? "false" : null;
            case DEDUPLICATION_SCOPE -> fifo ? "queue" : null;
            case FIFO_THROUGHPUT_LIMIT -> fifo ? "perQueue" : null;
            default -> null;
        };
    }

    /**
     * Validates attributes given to CreateQueue or SetQueueAttributes. FifoQueue is only
     * accepted at creation (a queue's type cannot change) and is not stored: the type is.
     *
     * @return the attributes to store, in a canonical form
     */
    public static Map<String, String> validate(Map<String, String> given, boolean fifo, boolean creating) {
        Map<String, String> out = new LinkedHashMap<>();
        for (Map.Entry<String, String> e : given.entrySet()) {
            String name = e.getKey();
            String value = e.getValue() == null ? "" : e.getValue();
            if (name.equals(FIFO_QUEUE)) {
                if (!fifo && (!creating || !value.equalsIgnoreCase("false"))) {
                    throw invalidName(name); // a standard queue has no such attribute
                }
                if (fifo && !creating) {
                    throw invalidValue(name); // a FIFO queue has it, but its type cannot change
                }
            } else if (FIFO_ONLY.contains(name)) {
                if (!fifo) {
                    throw invalidName(name);
                }
            } else if (!SETTABLE.contains(name)) {
                throw invalidName(name);
            }
            out.put(name, canonical(name, value));
        }
        out.remove(FIFO_QUEUE);
        if (out.containsKey(KMS_MASTER_KEY_ID) && !out.get(KMS_MASTER_KEY_ID).isEmpty()) {
            // SSE-KMS and SSE-SQS are alternatives; naming a key turns SQS-managed encryption off.
            out.putIfAbsent(SQS_MANAGED_SSE_ENABLED, "false");
        }
        return out;
    }

    private static String canonical(String name, String value) {
        long[] range = RANGES.get(name);
        if (range != null) {
            long n;
            try {
                n = Long.parseLong(value.trim());
            } catch (NumberFormatException ex) {
                throw invalidValue(name);
            }
            if (n < range[0] || n > range[1]) {
                throw invalidValue(name);
            }
            return Long.toString(n);
        }
        return switch (name) {
            case SQS_MANAGED_SSE_ENABLED, CONTENT_BASED_DEDUPLICATION, FIFO_QUEUE -> bool(name, value);
            case POLICY -> jsonObjectOrEmpty(name, value);
            // Read and checked against the queues they name by the caller, which parses the JSON.
            case REDRIVE_POLICY, REDRIVE_ALLOW_POLICY -> value.trim();
            case DEDUPLICATION_SCOPE -> oneOf(name, value, "messageGroup", "queue");
            case FIFO_THROUGHPUT_LIMIT -> oneOf(name, value, "perQueue", "perMessageGroupId");
            default -> value;
        };
    }

    private static String oneOf(String name, String value, String... allowed) {
        for (String a : allowed) {
            if (a.equals(value)) {
                return value;
            }
        }
        throw invalidValue(name);
    }

    private static String bool(String name, String value) {
        if (value.equalsIgnoreCase("true") || value.equalsIgnoreCase("false")) {
            return value.toLowerCase(Locale.ROOT);
        }
        throw invalidValue(name);
    }

    /** Policies are JSON documents; an empty value removes the policy. Deeper checks come with their features. */
    private static String jsonObjectOrEmpty(String name, String value) {
        String t = value.trim();
        if (!t.isEmpty() && !(t.startsWith("{") && t.endsWith("}"))) {
            throw invalidValue(name);
        }
        return t;
    }

    /**
     * The attributes GetQueueAttributes reports for the requested names.
     *
     * @param counts the queue's message counts, used only when a count is asked for
     */
    public static Map<String, String> report(QueueMeta meta, List<String> requested, String arn, MessageCounts counts) {
        boolean all = requested.contains("All");
        for (String name : requested) {
            if (!name.equals("All") && !REPORT_ORDER.contains(name)) {
                throw invalidName(name);
            }
        }
        Map<String, String> out = new LinkedHashMap<>();
        for (String name : REPORT_ORDER) {
            if (!all && !requested.contains(name)) {
                continue;
            }
            String value = switch (name) {
                case QUEUE_ARN -> arn;
                case APPROXIMATE_NUMBER_OF_MESSAGES -> Long.toString(counts.visible());
                case APPROXIMATE_NUMBER_OF_MESSAGES_NOT_VISIBLE -> Long.toString(counts.inFlight());
                case APPROXIMATE_NUMBER_OF_MESSAGES_DELAYED -> Long.toString(counts.delayed());
                case CREATED_TIMESTAMP -> Long.toString(meta.createdMillis() / 1000);
                case LAST_MODIFIED_TIMESTAMP -> Long.toString(meta.lastModifiedMillis() / 1000);
                // As SQS: only a queue with SSE-KMS (a key named) has a data key reuse period to show.
                case KMS_DATA_KEY_REUSE_PERIOD_SECONDS ->
                    !meta.attributes().getOrDefault(KMS_MASTER_KEY_ID, "").isEmpty()
                            ? meta.attributes().getOrDefault(name, "300")
                            : null;
                default -> meta.attribute(name);
            };
            if (value != null && !value.isEmpty()) {
                out.put(name, value);
            }
        }
        return out;
    }

    /** Whether any of these names asks for message counts, which cost a visit to every partition. */
    public static boolean needsCounts(List<String> requested) {
        return requested.contains("All") || requested.stream().anyMatch(COUNTS::contains);
    }

    /**
     * The first attribute a CreateQueue of an existing queue asks a different value of, or null
     * if none: the attributes {@code proposed} sets, and its redrive policy if it has one.
     */
    public static String firstDifference(QueueMeta existing, QueueMeta proposed) {
        for (Map.Entry<String, String> e : proposed.attributes().entrySet()) {
            String current = existing.attribute(e.getKey());
            if (!e.getValue().equals(current == null ? "" : current)) {
                return e.getKey();
            }
        }
        if (proposed.redrivePolicy() != null && !proposed.redrivePolicy().equals(existing.redrivePolicy())) {
            return REDRIVE_POLICY;
        }
        return null;
    }

    private static SqsException invalidName(String name) {
        return new SqsException(ErrorCode.INVALID_ATTRIBUTE_NAME, "Unknown Attribute " + name + ".");
    }

    private static SqsException invalidValue(String name) {
        return new SqsException(ErrorCode.INVALID_ATTRIBUTE_VALUE, "Invalid value for the parameter " + name + ".");
    }
}
