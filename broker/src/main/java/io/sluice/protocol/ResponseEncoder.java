package io.sluice.protocol;

import io.sluice.queue.ErrorCode;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Encodes results and errors for the protocol the request came in on. Results are always built
 * in the JSON protocol's response shape; the Query protocol translates them to XML.
 */
public final class ResponseEncoder {
    static final String JSON_TYPE = "application/x-amz-json-1.0";
    static final String XML_TYPE = "text/xml";
    static final String REQUEST_ID_HEADER = "x-amzn-RequestId";
    /** JSON SDKs read the Query error code from here to keep error codes stable across protocols. */
    static final String QUERY_ERROR_HEADER = "x-amzn-query-error";

    private static final String QUEUE_DOES_NOT_EXIST_JSON = "The specified queue does not exist.";
    private static final String QUEUE_DOES_NOT_EXIST_QUERY =
            "The specified queue does not exist for this wsdl version.";

    private ResponseEncoder() {}

    /** @param result the JSON protocol's response members; null or empty when the call has none */
    public static EncodedResponse success(WireProtocol p, SqsAction action, JsonObject result, String requestId) {
        JsonObject members = result == null ? new JsonObject() : result;
        Map<String, String> headers = headers(requestId);
        if (p == WireProtocol.JSON) {
            return response(200, JSON_TYPE, headers, JsonBody.encode(members));
        }
        return response(200, XML_TYPE, headers, QueryXml.success(action, members, requestId));
    }

    public static EncodedResponse error(WireProtocol p, ErrorCode code, String message, String requestId) {
        Map<String, String> headers = headers(requestId);
        if (p == WireProtocol.JSON) {
            headers.put(QUERY_ERROR_HEADER, code.queryCode() + (code.senderFault() ? ";Sender" : ";Receiver"));
            JsonObject body = new JsonObject()
                    .put("__type", "com.amazonaws.sqs#" + code.jsonShape())
                    .put("message", message == null ? "" : message);
            return response(code.httpStatus(), JSON_TYPE, headers, body.toBuffer());
        }
        return response(
                code.httpStatus(), XML_TYPE, headers, QueryXml.error(code, queryMessage(code, message), requestId));
    }

    /**
     * SQS words a missing queue differently per protocol: "The specified queue does not exist."
     * over JSON (the developer guide's JSON error example), "... for this wsdl version." over Query.
     */
    private static String queryMessage(ErrorCode code, String message) {
        if (code == ErrorCode.QUEUE_DOES_NOT_EXIST && QUEUE_DOES_NOT_EXIST_JSON.equals(message)) {
            return QUEUE_DOES_NOT_EXIST_QUERY;
        }
        return message;
    }

    private static Map<String, String> headers(String requestId) {
        Map<String, String> headers = new LinkedHashMap<>();
        if (requestId != null) {
            headers.put(REQUEST_ID_HEADER, requestId);
        }
        return headers;
    }

    private static EncodedResponse response(int status, String type, Map<String, String> headers, String body) {
        return response(status, type, headers, Buffer.buffer(body));
    }

    /** JSON bodies are written as UTF-8 bytes straight from the members, without an intermediate String. */
    private static EncodedResponse response(int status, String type, Map<String, String> headers, Buffer body) {
        return new EncodedResponse(status, type, Collections.unmodifiableMap(headers), body);
    }
}
