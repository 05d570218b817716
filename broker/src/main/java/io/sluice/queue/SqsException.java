package io.sluice.queue;

/** A request the broker refuses, carrying the SQS error code and message the client will see. */
public class SqsException extends RuntimeException {
    private final ErrorCode code;

    public SqsException(ErrorCode code, String message) {
        super(message, null, false, false);
        this.code = code;
    }

    public ErrorCode code() {
        return code;
    }

    public static SqsException invalidParameter(String message) {
        return new SqsException(ErrorCode.INVALID_PARAMETER_VALUE, message);
    }

    public static SqsException missingParameter(String name) {
        return new SqsException(ErrorCode.MISSING_PARAMETER, "The request must contain the parameter " + name + ".");
    }
}
