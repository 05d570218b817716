package io.sluice.queue;

import java.util.List;

/**
 * A queue's parsed RedrivePolicy, and the RedriveAllowPolicy of a dead-letter queue: which
 * sources may use it. Parsing the JSON is the caller's business (the server reads what clients
 * send); the rules are here, and a queue keeps its policy in this form ({@link QueueMeta#redrivePolicy()}).
 */
public record RedrivePolicy(String deadLetterTargetArn, int maxReceiveCount) {

    public static final int MAX_RECEIVE_COUNT = 1000;
    public static final int MAX_SOURCE_ARNS = 10;

    public RedrivePolicy {
        if (deadLetterTargetArn == null || deadLetterTargetArn.isEmpty()) {
            throw invalid("RedrivePolicy", "Redrive policy does not contain a deadLetterTargetArn.");
        }
        if (maxReceiveCount < 1 || maxReceiveCount > MAX_RECEIVE_COUNT) {
            throw invalid(
                    "RedrivePolicy",
                    "Invalid value for maxReceiveCount: " + maxReceiveCount
                            + ", valid values are from 1 to 1000 both inclusive.");
        }
    }

    /**
     * The form GetQueueAttributes reports: {"deadLetterTargetArn":"...","maxReceiveCount":n}. The
     * ARN is one of this broker's queue ARNs ({@link #checkTarget} found its queue), whose
     * characters need no escaping in JSON.
     */
    public String toJson() {
        return "{\"deadLetterTargetArn\":\"" + deadLetterTargetArn + "\",\"maxReceiveCount\":" + maxReceiveCount + "}";
    }

    /** A dead-letter queue's RedriveAllowPolicy. */
    public record AllowPolicy(String redrivePermission, List<String> sourceQueueArns) {
        public static final AllowPolicy ALLOW_ALL = new AllowPolicy("allowAll", List.of());

        public AllowPolicy {
            sourceQueueArns = sourceQueueArns == null ? List.of() : List.copyOf(sourceQueueArns);
            if (!List.of("allowAll", "denyAll", "byQueue").contains(redrivePermission)) {
                throw invalid("RedriveAllowPolicy", "redrivePermission must be allowAll, denyAll or byQueue.");
            }
            if (redrivePermission.equals("byQueue")
                    && (sourceQueueArns.isEmpty() || sourceQueueArns.size() > MAX_SOURCE_ARNS)) {
                throw invalid("RedriveAllowPolicy", "byQueue needs 1 to 10 sourceQueueArns.");
            }
            if (!redrivePermission.equals("byQueue") && !sourceQueueArns.isEmpty()) {
                throw invalid("RedriveAllowPolicy", "sourceQueueArns is only allowed with byQueue.");
            }
        }

        public boolean allows(String sourceArn) {
            return switch (redrivePermission) {
                case "allowAll" -> true;
                case "denyAll" -> false;
                default -> sourceQueueArns.contains(sourceArn);
            };
        }
    }

    /** The refusal of a RedrivePolicy whose deadLetterTargetArn names no queue. */
    public static SqsException noTarget() {
        return invalid("RedrivePolicy", "Dead letter target does not exist.");
    }

    /** The source may send its dead letters to this target: it exists, is of the same type, and allows it. */
    public static void checkTarget(QueueMeta target, boolean sourceFifo, String sourceArn, AllowPolicy allow) {
        if (target == null) {
            throw noTarget();
        }
        if (target.fifo() != sourceFifo) {
            throw invalid(
                    "RedrivePolicy",
                    sourceFifo
                            ? "Dead-letter queue of a FIFO queue must be a FIFO queue."
                            : "Dead-letter queue of a standard queue must be a standard queue.");
        }
        if (!allow.allows(sourceArn)) {
            throw invalid(
                    "RedrivePolicy", "The dead-letter queue's RedriveAllowPolicy does not allow this source queue.");
        }
    }

    static SqsException invalid(String attribute, String reason) {
        return SqsException.invalidParameter("Value for parameter " + attribute + " is invalid. Reason: " + reason);
    }
}
