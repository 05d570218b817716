package io.sluice.server;

import io.sluice.protocol.Params;
import io.sluice.queue.MessageAttributeValue;
import io.sluice.queue.SqsException;
import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Message attributes between the request/response tree and the queue's model. */
final class MessageCodec {
    private MessageCodec() {}

    static Map<String, MessageAttributeValue> attributesOf(Params params, String member) {
        Map<String, Params> raw = params.objectMap(member);
        if (raw.isEmpty()) {
            return Map.of();
        }
        Map<String, MessageAttributeValue> out = new LinkedHashMap<>();
        for (Map.Entry<String, Params> e : raw.entrySet()) {
            Params v = e.getValue();
            String type = v.optionalString("DataType");
            if (type == null || type.isEmpty()) {
                throw SqsException.invalidParameter(
                        "The message attribute '" + e.getKey() + "' must contain non-empty message attribute type.");
            }
            String binary = v.optionalString("BinaryValue");
            if (binary != null && (type.equals("Binary") || type.startsWith("Binary."))) {
                try {
                    out.put(
                            e.getKey(),
                            MessageAttributeValue.ofBinary(
                                    type, Base64.getMimeDecoder().decode(binary)));
                } catch (IllegalArgumentException ex) {
                    throw SqsException.invalidParameter(
                            "The message attribute '" + e.getKey() + "' has an invalid base64 binary value.");
                }
            } else {
                out.put(e.getKey(), MessageAttributeValue.ofString(type, v.optionalString("StringValue")));
            }
        }
        return out;
    }

    static JsonObject toJson(Map<String, MessageAttributeValue> attributes) {
        JsonObject out = new JsonObject();
        for (Map.Entry<String, MessageAttributeValue> e : attributes.entrySet()) {
            MessageAttributeValue v = e.getValue();
            JsonObject value = new JsonObject();
            if (v.isBinary()) {
                value.put("BinaryValue", Base64.getEncoder().encodeToString(v.binaryValue()));
            } else {
                value.put("StringValue", v.stringValue());
            }
            value.put("DataType", v.dataType());
            out.put(e.getKey(), value);
        }
        return out;
    }

    /** A batch's answer once every entry is done: entries that failed go in Failed, the rest in Successful. */
    static Future<JsonObject> batchResult(List<Future<JsonObject>> entries) {
        return Future.all(entries)
                .map(all -> batchOf(entries.stream().map(Future::result).toList()));
    }

    /** Entries in request order, each a success or a {@link #failure}, as the batch response's two lists. */
    static JsonObject batchOf(List<JsonObject> entries) {
        JsonArray successful = new JsonArray();
        JsonArray failed = new JsonArray();
        for (JsonObject r : entries) {
            (r.containsKey("SenderFault") ? failed : successful).add(r);
        }
        return new JsonObject().put("Successful", successful).put("Failed", failed);
    }

    /** A batch entry's failure, as SQS reports it inside a successful batch response. */
    static JsonObject failure(String id, SqsException e) {
        return new JsonObject()
                .put("Id", id)
                .put("SenderFault", e.code().senderFault())
                .put("Code", e.code().entryCode())
                .put("Message", e.getMessage());
    }
}
