package io.sluice.queue;

/**
 * The SQS errors the broker returns, with what each wire protocol needs to render them:
 * the Query protocol's code and fault type, the JSON protocol's {@code __type} shape name,
 * and the HTTP status. SDKs of the JSON protocol read the Query code from the
 * {@code x-amzn-query-error} header, so both names must be right.
 *
 * <p>The JSON names are those of SQS's API model for its modelled errors (QueueDoesNotExist for
 * AWS.SimpleQueueService.NonExistentQueue, QueueNameExists for QueueAlreadyExists, ...); the
 * common errors SQS answers over JSON with an exception name (InvalidParameterValueException,
 * MissingRequiredParameterException, UnknownOperationException for InvalidAction).
 */
public enum ErrorCode {
    INVALID_ACTION("InvalidAction", "UnknownOperationException", 400, true),
    MISSING_PARAMETER("MissingParameter", "MissingRequiredParameterException", 400, true),
    INVALID_PARAMETER_VALUE("InvalidParameterValue", "InvalidParameterValueException", 400, true),
    MALFORMED_QUERY_STRING("MalformedQueryString", "MalformedQueryString", 400, true),
    SERIALIZATION_ERROR("SerializationException", "SerializationException", 400, true),
    INVALID_ADDRESS("InvalidAddress", "InvalidAddress", 404, true),
    REQUEST_TOO_LARGE("RequestEntityTooLarge", "RequestEntityTooLarge", 413, true),
    /** What the HTTP layer refuses before a request reaches SQS: an oversized head, a garbled request. */
    REQUEST_HEADER_TOO_LARGE("RequestHeaderSectionTooLarge", "RequestHeaderSectionTooLarge", 431, true),
    REQUEST_URI_TOO_LONG("RequestURITooLong", "RequestURITooLong", 414, true),
    MALFORMED_HTTP_REQUEST("MalformedHttpRequest", "MalformedHttpRequestException", 400, true),
    UNSUPPORTED_OPERATION("AWS.SimpleQueueService.UnsupportedOperation", "UnsupportedOperation", 400, true),
    QUEUE_DOES_NOT_EXIST("AWS.SimpleQueueService.NonExistentQueue", "QueueDoesNotExist", 400, true),
    QUEUE_ALREADY_EXISTS("QueueAlreadyExists", "QueueNameExists", 400, true),
    QUEUE_DELETED_RECENTLY("AWS.SimpleQueueService.QueueDeletedRecently", "QueueDeletedRecently", 400, true),
    PURGE_QUEUE_IN_PROGRESS("AWS.SimpleQueueService.PurgeQueueInProgress", "PurgeQueueInProgress", 403, true),
    INVALID_ATTRIBUTE_NAME("InvalidAttributeName", "InvalidAttributeName", 400, true),
    INVALID_ATTRIBUTE_VALUE("InvalidAttributeValue", "InvalidAttributeValue", 400, true),
    INVALID_MESSAGE_CONTENTS("InvalidMessageContents", "InvalidMessageContents", 400, true),
    OVER_LIMIT("OverLimit", "OverLimit", 403, true),
    RECEIPT_HANDLE_IS_INVALID("ReceiptHandleIsInvalid", "ReceiptHandleIsInvalid", 400, true),
    MESSAGE_NOT_INFLIGHT("AWS.SimpleQueueService.MessageNotInflight", "MessageNotInflight", 400, true),
    EMPTY_BATCH_REQUEST("AWS.SimpleQueueService.EmptyBatchRequest", "EmptyBatchRequest", 400, true),
    TOO_MANY_ENTRIES_IN_BATCH_REQUEST(
            "AWS.SimpleQueueService.TooManyEntriesInBatchRequest", "TooManyEntriesInBatchRequest", 400, true),
    BATCH_ENTRY_IDS_NOT_DISTINCT(
            "AWS.SimpleQueueService.BatchEntryIdsNotDistinct", "BatchEntryIdsNotDistinct", 400, true),
    INVALID_BATCH_ENTRY_ID("AWS.SimpleQueueService.InvalidBatchEntryId", "InvalidBatchEntryId", 400, true),
    BATCH_REQUEST_TOO_LONG("AWS.SimpleQueueService.BatchRequestTooLong", "BatchRequestTooLong", 400, true),
    RESOURCE_NOT_FOUND("ResourceNotFoundException", "ResourceNotFoundException", 404, true),
    INVALID_SECURITY("InvalidSecurity", "InvalidSecurity", 403, true),
    ACCESS_DENIED("AccessDenied", "AccessDeniedException", 403, true),
    /** Authentication (AWS Signature Version 4), as AWS's common errors list them. */
    MISSING_AUTHENTICATION_TOKEN("MissingAuthenticationToken", "MissingAuthenticationTokenException", 403, true),
    INCOMPLETE_SIGNATURE("IncompleteSignature", "IncompleteSignatureException", 400, true),
    INVALID_CLIENT_TOKEN_ID("InvalidClientTokenId", "InvalidClientTokenIdException", 403, true),
    SIGNATURE_DOES_NOT_MATCH("SignatureDoesNotMatch", "SignatureDoesNotMatchException", 403, true),
    REQUEST_EXPIRED("RequestExpired", "RequestExpiredException", 400, true),
    REQUEST_THROTTLED("RequestThrottled", "RequestThrottled", 400, true),
    SERVICE_UNAVAILABLE("ServiceUnavailable", "ServiceUnavailable", 503, false),
    INTERNAL_FAILURE("InternalFailure", "InternalFailure", 500, false);

    private final String queryCode;
    private final String jsonShape;
    private final int httpStatus;
    private final boolean senderFault;

    ErrorCode(String queryCode, String jsonShape, int httpStatus, boolean senderFault) {
        this.queryCode = queryCode;
        this.jsonShape = jsonShape;
        this.httpStatus = httpStatus;
        this.senderFault = senderFault;
    }

    /** The code of the Query protocol's {@code <Code>} element and the x-amzn-query-error header. */
    public String queryCode() {
        return queryCode;
    }

    /** The shape name after {@code com.amazonaws.sqs#} in the JSON protocol's {@code __type}. */
    public String jsonShape() {
        return jsonShape;
    }

    /**
     * The code of a failed batch entry (BatchResultErrorEntry.Code), the same in both protocols:
     * the Query code without the service prefix, e.g. InvalidParameterValue, ReceiptHandleIsInvalid.
     */
    public String entryCode() {
        String prefix = "AWS.SimpleQueueService.";
        return queryCode.startsWith(prefix) ? queryCode.substring(prefix.length()) : queryCode;
    }

    public int httpStatus() {
        return httpStatus;
    }

    /** Sender for a bad request, Receiver for the broker's own failure. */
    public boolean senderFault() {
        return senderFault;
    }
}
