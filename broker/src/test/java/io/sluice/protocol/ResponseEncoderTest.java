package io.sluice.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.queue.ErrorCode;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

class ResponseEncoderTest {
    private static final String NS = "http://queue.amazonaws.com/doc/2012-11-05/";

    private static Element parse(EncodedResponse r) throws Exception {
        DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
        f.setNamespaceAware(true);
        Document doc =
                f.newDocumentBuilder().parse(new ByteArrayInputStream(r.body().getBytes()));
        return doc.getDocumentElement();
    }

    private static List<Element> children(Element parent, String name) {
        List<Element> out = new ArrayList<>();
        NodeList nodes = parent.getChildNodes();
        for (int i = 0; i < nodes.getLength(); i++) {
            Node n = nodes.item(i);
            if (n instanceof Element e && (name == null || e.getTagName().equals(name))) {
                out.add(e);
            }
        }
        return out;
    }

    private static Element child(Element parent, String name) {
        List<Element> found = children(parent, name);
        assertEquals(1, found.size(), "exactly one <" + name + "> in <" + parent.getTagName() + ">");
        return found.get(0);
    }

    private static String text(Element parent, String name) {
        return child(parent, name).getTextContent();
    }

    @Test
    void receiveMessageAsXml() throws Exception {
        JsonObject message = new JsonObject()
                .put("MessageId", "m-1")
                .put("ReceiptHandle", "rh")
                .put("MD5OfBody", "md5")
                .put("Body", "a < b & \"c\"\r\nd")
                .put("Attributes", new JsonObject().put("SenderId", "s").put("ApproximateReceiveCount", "1"))
                .put("MD5OfMessageAttributes", "md5a")
                .put(
                        "MessageAttributes",
                        new JsonObject()
                                .put(
                                        "color",
                                        new JsonObject()
                                                .put("DataType", "String")
                                                .put("StringValue", "blue"))
                                .put(
                                        "blob",
                                        new JsonObject()
                                                .put("DataType", "Binary")
                                                .put("BinaryValue", "AAEC")));
        EncodedResponse r = ResponseEncoder.success(
                WireProtocol.QUERY,
                SqsAction.RECEIVE_MESSAGE,
                new JsonObject()
                        .put("Messages", new JsonArray().add(message).add(new JsonObject().put("MessageId", "m-2"))),
                "req-1");

        assertEquals(200, r.status());
        assertEquals("text/xml", r.contentType());
        assertEquals("req-1", r.headers().get("x-amzn-RequestId"));
        assertTrue(
                r.body()
                        .toString()
                        .startsWith("<?xml version=\"1.0\" encoding=\"UTF-8\"?><ReceiveMessageResponse xmlns=\"" + NS
                                + "\"><ReceiveMessageResult><Message><MessageId>m-1</MessageId>"),
                r.body().toString());
        assertTrue(r.body().toString().contains("&#xD;"));

        Element root = parse(r);
        assertEquals("ReceiveMessageResponse", root.getTagName());
        assertEquals(NS, root.getNamespaceURI());
        Element result = child(root, "ReceiveMessageResult");
        List<Element> messages = children(result, "Message");
        assertEquals(2, messages.size());
        Element m = messages.get(0);
        assertEquals("a < b & \"c\"\r\nd", text(m, "Body")); // CR survives the XML round trip
        assertEquals("rh", text(m, "ReceiptHandle"));
        List<Element> attrs = children(m, "Attribute");
        assertEquals(2, attrs.size());
        assertEquals("SenderId", text(attrs.get(0), "Name"));
        assertEquals("s", text(attrs.get(0), "Value"));
        List<Element> mattrs = children(m, "MessageAttribute");
        assertEquals("color", text(mattrs.get(0), "Name"));
        Element value = child(mattrs.get(0), "Value");
        assertEquals(
                List.of("StringValue", "DataType"),
                children(value, null).stream().map(Element::getTagName).toList());
        assertEquals("blue", text(value, "StringValue"));
        assertEquals("AAEC", text(child(mattrs.get(1), "Value"), "BinaryValue"));
        assertEquals("req-1", text(child(root, "ResponseMetadata"), "RequestId"));
    }

    @Test
    void emptyReceiveStillHasAResultElement() throws Exception {
        Element root =
                parse(ResponseEncoder.success(WireProtocol.QUERY, SqsAction.RECEIVE_MESSAGE, new JsonObject(), "r"));
        assertEquals(0, children(child(root, "ReceiveMessageResult"), null).size());
        Element list = parse(ResponseEncoder.success(WireProtocol.QUERY, SqsAction.LIST_QUEUES, null, "r"));
        child(list, "ListQueuesResult");
    }

    @Test
    void actionsWithoutOutputHaveOnlyMetadata() throws Exception {
        EncodedResponse r =
                ResponseEncoder.success(WireProtocol.QUERY, SqsAction.DELETE_QUEUE, new JsonObject(), "r-9");
        assertEquals(
                "<?xml version=\"1.0\" encoding=\"UTF-8\"?><DeleteQueueResponse xmlns=\"" + NS + "\">"
                        + "<ResponseMetadata><RequestId>r-9</RequestId></ResponseMetadata></DeleteQueueResponse>",
                r.body().toString());
    }

    @Test
    void batchResultAsXml() throws Exception {
        JsonObject result = new JsonObject()
                .put(
                        "Successful",
                        new JsonArray()
                                .add(new JsonObject()
                                        .put("Id", "a")
                                        .put("MessageId", "m")
                                        .put("MD5OfMessageBody", "x")))
                .put(
                        "Failed",
                        new JsonArray()
                                .add(new JsonObject()
                                        .put("Id", "b")
                                        .put("SenderFault", true)
                                        .put("Code", "InvalidParameterValue")
                                        .put("Message", "bad")));
        Element root = parse(ResponseEncoder.success(WireProtocol.QUERY, SqsAction.SEND_MESSAGE_BATCH, result, "r"));
        Element res = child(root, "SendMessageBatchResult");
        Element ok = child(res, "SendMessageBatchResultEntry");
        assertEquals("a", text(ok, "Id"));
        assertEquals("m", text(ok, "MessageId"));
        Element failed = child(res, "BatchResultErrorEntry");
        assertEquals("true", text(failed, "SenderFault"));
        assertEquals("InvalidParameterValue", text(failed, "Code"));

        Element del = parse(ResponseEncoder.success(
                WireProtocol.QUERY,
                SqsAction.DELETE_MESSAGE_BATCH,
                new JsonObject()
                        .put("Successful", new JsonArray().add(new JsonObject().put("Id", "z")))
                        .put("Failed", new JsonArray()),
                "r"));
        assertEquals("z", text(child(child(del, "DeleteMessageBatchResult"), "DeleteMessageBatchResultEntry"), "Id"));
    }

    @Test
    void listsMapsAndScalarsAsXml() throws Exception {
        Element queues = parse(ResponseEncoder.success(
                WireProtocol.QUERY,
                SqsAction.LIST_QUEUES,
                new JsonObject()
                        .put("QueueUrls", new JsonArray().add("u1").add("u2"))
                        .put("NextToken", "t"),
                "r"));
        Element res = child(queues, "ListQueuesResult");
        assertEquals(
                List.of("u1", "u2"),
                children(res, "QueueUrl").stream().map(Element::getTextContent).toList());
        assertEquals("t", text(res, "NextToken"));

        Element dlq = parse(ResponseEncoder.success(
                WireProtocol.QUERY,
                SqsAction.LIST_DEAD_LETTER_SOURCE_QUEUES,
                new JsonObject().put("queueUrls", new JsonArray().add("s")),
                "r"));
        assertEquals("s", text(child(dlq, "ListDeadLetterSourceQueuesResult"), "QueueUrl"));

        Element tags = parse(ResponseEncoder.success(
                WireProtocol.QUERY,
                SqsAction.LIST_QUEUE_TAGS,
                new JsonObject().put("Tags", new JsonObject().put("team", "core")),
                "r"));
        Element tag = child(child(tags, "ListQueueTagsResult"), "Tag");
        assertEquals("team", text(tag, "Key"));
        assertEquals("core", text(tag, "Value"));

        Element moves = parse(ResponseEncoder.success(
                WireProtocol.QUERY,
                SqsAction.LIST_MESSAGE_MOVE_TASKS,
                new JsonObject()
                        .put(
                                "Results",
                                new JsonArray()
                                        .add(new JsonObject()
                                                .put("Status", "RUNNING")
                                                .put("ApproximateNumberOfMessagesMoved", 12L)
                                                .put("MaxNumberOfMessagesPerSecond", 2.5))),
                "r"));
        Element entry = child(child(moves, "ListMessageMoveTasksResult"), "ListMessageMoveTasksResultEntry");
        assertEquals("12", text(entry, "ApproximateNumberOfMessagesMoved"));
        assertEquals("2.5", text(entry, "MaxNumberOfMessagesPerSecond"));

        Element attrs = parse(ResponseEncoder.success(
                WireProtocol.QUERY,
                SqsAction.GET_QUEUE_ATTRIBUTES,
                new JsonObject().put("Attributes", new JsonObject().put("DelaySeconds", "0")),
                "r"));
        Element attr = child(child(attrs, "GetQueueAttributesResult"), "Attribute");
        assertEquals("DelaySeconds", text(attr, "Name"));
        assertEquals("0", text(attr, "Value"));
    }

    @Test
    void queryError() throws Exception {
        // SQS words a missing queue this way over Query (and without the wsdl part over JSON)
        EncodedResponse r = ResponseEncoder.error(
                WireProtocol.QUERY, ErrorCode.QUEUE_DOES_NOT_EXIST, "The specified queue does not exist.", "req-2");
        assertEquals(400, r.status());
        assertEquals("text/xml", r.contentType());
        assertEquals(
                "<?xml version=\"1.0\" encoding=\"UTF-8\"?><ErrorResponse xmlns=\"" + NS + "\"><Error>"
                        + "<Type>Sender</Type><Code>AWS.SimpleQueueService.NonExistentQueue</Code>"
                        + "<Message>The specified queue does not exist for this wsdl version.</Message><Detail/></Error>"
                        + "<RequestId>req-2</RequestId></ErrorResponse>",
                r.body().toString());
        Element root = parse(ResponseEncoder.error(WireProtocol.QUERY, ErrorCode.INTERNAL_FAILURE, "a<b", "x"));
        assertEquals("Receiver", text(child(root, "Error"), "Type"));
        assertEquals("a<b", text(child(root, "Error"), "Message"));
    }

    /** Found by the hostile-input fuzzing: an error quoting a client's NUL was no XML a client could parse. */
    @Test
    void charactersXmlCannotCarryBecomeReplacementCharacters() throws Exception {
        Element root = parse(ResponseEncoder.error(
                WireProtocol.QUERY,
                ErrorCode.INVALID_ACTION,
                "The action a\u0000b\u0001\ud800\uffff\t\n\ud83d\ude00 is not valid for this endpoint.",
                "x"));
        assertEquals(
                "The action a\ufffdb\ufffd\ufffd\ufffd\t\n\ud83d\ude00 is not valid for this endpoint.",
                text(child(root, "Error"), "Message"));
        Element tags = parse(ResponseEncoder.success(
                WireProtocol.QUERY,
                SqsAction.LIST_QUEUE_TAGS,
                new JsonObject().put("Tags", new JsonObject().put("k\u0000", "v\u001f")),
                "x"));
        Element tag = child(child(tags, "ListQueueTagsResult"), "Tag");
        assertEquals("k\ufffd", text(tag, "Key"));
        assertEquals("v\ufffd", text(tag, "Value"));
    }

    @Test
    void jsonSuccess() {
        EncodedResponse r = ResponseEncoder.success(
                WireProtocol.JSON, SqsAction.GET_QUEUE_URL, new JsonObject().put("QueueUrl", "u"), "req-3");
        assertEquals(200, r.status());
        assertEquals("application/x-amz-json-1.0", r.contentType());
        assertEquals(Map.of("x-amzn-RequestId", "req-3"), r.headers());
        assertEquals("{\"QueueUrl\":\"u\"}", r.body().toString());
        assertEquals(
                "{}",
                ResponseEncoder.success(WireProtocol.JSON, SqsAction.DELETE_QUEUE, null, "r")
                        .body()
                        .toString());
    }

    @Test
    void jsonBodiesAreUtf8WithEveryCharacterAMessageMayCarry() {
        // A body the SDK checks against MD5OfBody: what it parses from the wire must be the same string.
        String body = "caf\u00e9 \u65e5\u672c \ud83d\ude42 \"q\" back\\slash tab\t cr\r \u0001";
        JsonObject members = new JsonObject().put("Messages", new JsonArray().add(new JsonObject().put("Body", body)));
        EncodedResponse r = ResponseEncoder.success(WireProtocol.JSON, SqsAction.RECEIVE_MESSAGE, members, "r");
        byte[] wire = r.body().getBytes();
        // Jackson may escape a surrogate pair (\uD83D\uDE42) where a String writer kept it raw: same JSON value.
        assertEquals(members, new JsonObject(new String(wire, StandardCharsets.UTF_8)));
        assertTrue(
                new String(wire, StandardCharsets.UTF_8).contains("caf\u00e9 \u65e5\u672c"), "BMP text as raw UTF-8");
        EncodedResponse error = ResponseEncoder.error(WireProtocol.JSON, ErrorCode.INVALID_PARAMETER_VALUE, body, "r");
        assertEquals(
                body, new JsonObject(new String(error.body().getBytes(), StandardCharsets.UTF_8)).getString("message"));
    }

    @Test
    void jsonErrorBodyAndHeaders() {
        EncodedResponse r = ResponseEncoder.error(
                WireProtocol.JSON, ErrorCode.QUEUE_DOES_NOT_EXIST, "The specified queue does not exist.", "req-4");
        assertEquals(400, r.status());
        assertEquals("application/x-amz-json-1.0", r.contentType());
        assertEquals("req-4", r.headers().get("x-amzn-RequestId"));
        assertEquals(
                "AWS.SimpleQueueService.NonExistentQueue;Sender", r.headers().get("x-amzn-query-error"));
        assertEquals(
                new JsonObject()
                        .put("__type", "com.amazonaws.sqs#QueueDoesNotExist")
                        .put("message", "The specified queue does not exist."),
                new JsonObject(r.body()));

        // Common errors: the Query code in the header, SQS's exception name as __type.
        EncodedResponse invalid =
                ResponseEncoder.error(WireProtocol.JSON, ErrorCode.INVALID_PARAMETER_VALUE, "bad", "r");
        assertEquals("InvalidParameterValue;Sender", invalid.headers().get("x-amzn-query-error"));
        assertEquals(
                "com.amazonaws.sqs#InvalidParameterValueException", new JsonObject(invalid.body()).getString("__type"));
        EncodedResponse missing = ResponseEncoder.error(WireProtocol.JSON, ErrorCode.MISSING_PARAMETER, "m", "r");
        assertEquals("MissingParameter;Sender", missing.headers().get("x-amzn-query-error"));
        assertEquals(
                "com.amazonaws.sqs#MissingRequiredParameterException",
                new JsonObject(missing.body()).getString("__type"));
        EncodedResponse action = ResponseEncoder.error(WireProtocol.JSON, ErrorCode.INVALID_ACTION, "a", "r");
        assertEquals("InvalidAction;Sender", action.headers().get("x-amzn-query-error"));
        assertEquals("com.amazonaws.sqs#UnknownOperationException", new JsonObject(action.body()).getString("__type"));

        EncodedResponse internal = ResponseEncoder.error(WireProtocol.JSON, ErrorCode.SERVICE_UNAVAILABLE, "busy", "r");
        assertEquals(503, internal.status());
        assertEquals("ServiceUnavailable;Receiver", internal.headers().get("x-amzn-query-error"));
    }
}
