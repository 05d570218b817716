package io.sluice.it;

import static io.sluice.it.RawHttp.child;
import static io.sluice.it.RawHttp.children;
import static io.sluice.it.RawHttp.root;
import static io.sluice.it.RawHttp.text;
import static io.sluice.it.RawHttp.xml;
import static io.sluice.it.SqsAssert.assertNotBlank;
import static io.sluice.it.SqsAssert.awaitAttribute;
import static io.sluice.it.SqsAssert.md5OfAttributes;
import static io.sluice.it.SqsAssert.md5OfBody;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.w3c.dom.Element;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.services.sqs.model.MessageAttributeValue;

/** AWS Query protocol (form POST, XML answers) with raw java.net.http requests. */
@Timeout(30)
class QueryProtocolTest {

    @RegisterExtension
    static final BrokerExtension broker = new BrokerExtension();

    private static RawHttp http;

    @BeforeAll
    static void client() {
        http = new RawHttp(broker.baseUrl());
    }

    private static Element ok(HttpResponse<String> r, String rootName) {
        assertEquals(200, r.statusCode(), () -> rootName + " failed: " + r.body());
        String ct = r.headers().firstValue("Content-Type").orElse("");
        assertTrue(ct.contains("xml"), "Query answers are XML, Content-Type was " + ct);
        Element root = root(xml(r), rootName);
        assertNotBlank(text(root, "ResponseMetadata", "RequestId"), "ResponseMetadata/RequestId");
        return root;
    }

    /** Asserts an ErrorResponse with the given status, type and code; returns the Error element. */
    private static Element error(HttpResponse<String> r, int status, String type, String code) {
        assertEquals(status, r.statusCode(), () -> "HTTP status; body: " + r.body());
        Element root = root(xml(r), "ErrorResponse");
        Element err = child(root, "Error");
        assertEquals(type, text(err, "Type"), "Error/Type");
        if (code != null) {
            assertEquals(code, text(err, "Code"), "Error/Code");
        } else {
            assertNotBlank(text(err, "Code"), "Error/Code");
        }
        assertNotBlank(text(err, "Message"), "Error/Message");
        assertNotBlank(text(root, "RequestId"), "ErrorResponse/RequestId");
        return err;
    }

    private static String createQueue(String prefix) {
        String name = BrokerExtension.uniqueName(prefix);
        Element root = ok(http.query("Action", "CreateQueue", "QueueName", name), "CreateQueueResponse");
        return text(root, "CreateQueueResult", "QueueUrl");
    }

    @Test
    void createQueueAndGetQueueUrl() {
        String name = BrokerExtension.uniqueName("qcreate");
        Element root = ok(
                http.query(
                        "Action",
                        "CreateQueue",
                        "QueueName",
                        name,
                        "Attribute.1.Name",
                        "VisibilityTimeout",
                        "Attribute.1.Value",
                        "45",
                        "Attribute.2.Name",
                        "DelaySeconds",
                        "Attribute.2.Value",
                        "2"),
                "CreateQueueResponse");
        String url = text(root, "CreateQueueResult", "QueueUrl");
        assertEquals(broker.expectedQueueUrl(name), url);
        assertEquals("45", broker.attribute(url, "VisibilityTimeout"));
        assertEquals("2", broker.attribute(url, "DelaySeconds"));

        Element got = ok(http.query("Action", "GetQueueUrl", "QueueName", name), "GetQueueUrlResponse");
        assertEquals(url, text(got, "GetQueueUrlResult", "QueueUrl"));

        // Tags on create, Query style.
        String tagged = BrokerExtension.uniqueName("qtag");
        ok(
                http.query("Action", "CreateQueue", "QueueName", tagged, "Tag.1.Key", "team", "Tag.1.Value", "core"),
                "CreateQueueResponse");
        Element tags = ok(
                http.query("Action", "ListQueueTags", "QueueUrl", broker.expectedQueueUrl(tagged)),
                "ListQueueTagsResponse");
        Element tag = child(child(tags, "ListQueueTagsResult"), "Tag");
        assertEquals("team", text(tag, "Key"));
        assertEquals("core", text(tag, "Value"));
    }

    @Test
    void sendMessageAnswersIdAndChecksums() {
        String url = createQueue("qsend");
        String body = "héllo ☃ 😀 <tag>&amp;";
        Element root = ok(
                http.query(
                        "Action",
                        "SendMessage",
                        "QueueUrl",
                        url,
                        "MessageBody",
                        body,
                        "MessageAttribute.1.Name",
                        "color",
                        "MessageAttribute.1.Value.DataType",
                        "String",
                        "MessageAttribute.1.Value.StringValue",
                        "blue"),
                "SendMessageResponse");
        Element result = child(root, "SendMessageResult");
        assertEquals(md5OfBody(body), text(result, "MD5OfMessageBody"));
        assertEquals(
                md5OfAttributes(Map.of(
                        "color",
                        MessageAttributeValue.builder()
                                .dataType("String")
                                .stringValue("blue")
                                .build())),
                text(result, "MD5OfMessageAttributes"));
        assertNotBlank(text(result, "MessageId"), "MessageId");
    }

    @Test
    void receiveMessageXmlShape() {
        String url = createQueue("qrecv");
        String body = "<a href=\"x\">b & c</a> ☃";
        byte[] bin = {0, 1, 2, (byte) 0xFE};
        Element sent = ok(
                http.query(
                        "Action",
                        "SendMessage",
                        "QueueUrl",
                        url,
                        "MessageBody",
                        body,
                        "MessageAttribute.1.Name",
                        "color",
                        "MessageAttribute.1.Value.DataType",
                        "String",
                        "MessageAttribute.1.Value.StringValue",
                        "blue",
                        "MessageAttribute.2.Name",
                        "bin",
                        "MessageAttribute.2.Value.DataType",
                        "Binary",
                        "MessageAttribute.2.Value.BinaryValue",
                        Base64.getEncoder().encodeToString(bin)),
                "SendMessageResponse");
        String messageId = text(sent, "SendMessageResult", "MessageId");

        Element root = ok(
                http.query(
                        "Action",
                        "ReceiveMessage",
                        "QueueUrl",
                        url,
                        "MaxNumberOfMessages",
                        "1",
                        "AttributeName.1",
                        "All",
                        "MessageAttributeName.1",
                        "All"),
                "ReceiveMessageResponse");
        Element msg = child(child(root, "ReceiveMessageResult"), "Message");
        assertEquals(messageId, text(msg, "MessageId"));
        assertNotBlank(text(msg, "ReceiptHandle"), "ReceiptHandle");
        assertEquals(body, text(msg, "Body"));
        assertEquals(md5OfBody(body), text(msg, "MD5OfBody"));

        Map<String, String> attrs = new HashMap<>();
        for (Element a : children(msg, "Attribute")) {
            attrs.put(text(a, "Name"), text(a, "Value"));
        }
        assertTrue(
                attrs.keySet()
                        .containsAll(Set.of(
                                "SenderId",
                                "SentTimestamp",
                                "ApproximateReceiveCount",
                                "ApproximateFirstReceiveTimestamp")),
                "Attribute elements: " + attrs);
        assertEquals("1", attrs.get("ApproximateReceiveCount"));

        Map<String, Element> mattrs = children(msg, "MessageAttribute").stream()
                .collect(Collectors.toMap(e -> text(e, "Name"), e -> child(e, "Value")));
        assertEquals(Set.of("color", "bin"), mattrs.keySet());
        assertEquals("String", text(mattrs.get("color"), "DataType"));
        assertEquals("blue", text(mattrs.get("color"), "StringValue"));
        assertEquals("Binary", text(mattrs.get("bin"), "DataType"));
        assertEquals(
                Base64.getEncoder().encodeToString(bin),
                text(mattrs.get("bin"), "BinaryValue").trim());

        Map<String, MessageAttributeValue> expected = Map.of(
                "color",
                        MessageAttributeValue.builder()
                                .dataType("String")
                                .stringValue("blue")
                                .build(),
                "bin",
                        MessageAttributeValue.builder()
                                .dataType("Binary")
                                .binaryValue(SdkBytes.fromByteArray(bin))
                                .build());
        assertEquals(md5OfAttributes(expected), text(msg, "MD5OfMessageAttributes"));

        // Delete and check the empty answer shape.
        ok(
                http.query("Action", "DeleteMessage", "QueueUrl", url, "ReceiptHandle", text(msg, "ReceiptHandle")),
                "DeleteMessageResponse");
        Element empty = ok(http.query("Action", "ReceiveMessage", "QueueUrl", url), "ReceiveMessageResponse");
        assertTrue(children(child(empty, "ReceiveMessageResult"), "Message").isEmpty());
    }

    @Test
    void getQueueAttributesXmlShape() {
        String url = createQueue("qattr");
        Element root = ok(
                http.query("Action", "GetQueueAttributes", "QueueUrl", url, "AttributeName.1", "All"),
                "GetQueueAttributesResponse");
        Map<String, String> attrs = children(child(root, "GetQueueAttributesResult"), "Attribute").stream()
                .collect(Collectors.toMap(e -> text(e, "Name"), e -> text(e, "Value")));
        assertEquals(BrokerExtension.expectedArn(BrokerExtension.nameOf(url)), attrs.get("QueueArn"));
        assertEquals("30", attrs.get("VisibilityTimeout"));
        assertEquals("0", attrs.get("ApproximateNumberOfMessages"));

        Element one = ok(
                http.query("Action", "GetQueueAttributes", "QueueUrl", url, "AttributeName.1", "VisibilityTimeout"),
                "GetQueueAttributesResponse");
        List<Element> only = children(child(one, "GetQueueAttributesResult"), "Attribute");
        assertEquals(1, only.size());
        assertEquals("VisibilityTimeout", text(only.get(0), "Name"));

        ok(
                http.query(
                        "Action",
                        "SetQueueAttributes",
                        "QueueUrl",
                        url,
                        "Attribute.1.Name",
                        "VisibilityTimeout",
                        "Attribute.1.Value",
                        "60"),
                "SetQueueAttributesResponse");
        assertEquals("60", broker.attribute(url, "VisibilityTimeout"));

        error(
                http.query("Action", "GetQueueAttributes", "QueueUrl", url, "AttributeName.1", "Bogus"),
                400,
                "Sender",
                "InvalidAttributeName");
    }

    @Test
    void listQueuesXmlShape() {
        String prefix = BrokerExtension.uniqueName("qlist");
        String a = text(
                ok(http.query("Action", "CreateQueue", "QueueName", prefix + "-a"), "CreateQueueResponse"),
                "CreateQueueResult",
                "QueueUrl");
        String b = text(
                ok(http.query("Action", "CreateQueue", "QueueName", prefix + "-b"), "CreateQueueResponse"),
                "CreateQueueResult",
                "QueueUrl");
        Element root = ok(http.query("Action", "ListQueues", "QueueNamePrefix", prefix), "ListQueuesResponse");
        Set<String> urls = children(child(root, "ListQueuesResult"), "QueueUrl").stream()
                .map(Element::getTextContent)
                .collect(Collectors.toSet());
        assertEquals(Set.of(a, b), urls);

        Element page = ok(
                http.query("Action", "ListQueues", "QueueNamePrefix", prefix, "MaxResults", "1"), "ListQueuesResponse");
        Element result = child(page, "ListQueuesResult");
        assertEquals(1, children(result, "QueueUrl").size());
        String token = text(result, "NextToken");
        Element page2 = ok(
                http.query("Action", "ListQueues", "QueueNamePrefix", prefix, "MaxResults", "1", "NextToken", token),
                "ListQueuesResponse");
        assertEquals(1, children(child(page2, "ListQueuesResult"), "QueueUrl").size());
    }

    @Test
    void sendMessageBatchXmlShape() {
        String url = createQueue("qbatch");
        Element root = ok(
                http.query(
                        "Action",
                        "SendMessageBatch",
                        "QueueUrl",
                        url,
                        "SendMessageBatchRequestEntry.1.Id",
                        "good",
                        "SendMessageBatchRequestEntry.1.MessageBody",
                        "fine",
                        "SendMessageBatchRequestEntry.2.Id",
                        "bad",
                        "SendMessageBatchRequestEntry.2.MessageBody",
                        "nul\u0000",
                        "SendMessageBatchRequestEntry.3.Id",
                        "delayed",
                        "SendMessageBatchRequestEntry.3.MessageBody",
                        "later",
                        "SendMessageBatchRequestEntry.3.DelaySeconds",
                        "5"),
                "SendMessageBatchResponse");
        Element result = child(root, "SendMessageBatchResult");
        Map<String, Element> ok = children(result, "SendMessageBatchResultEntry").stream()
                .collect(Collectors.toMap(e -> text(e, "Id"), e -> e));
        assertEquals(Set.of("good", "delayed"), ok.keySet());
        assertEquals(md5OfBody("fine"), text(ok.get("good"), "MD5OfMessageBody"));
        assertNotBlank(text(ok.get("good"), "MessageId"), "MessageId");

        Element failed = child(result, "BatchResultErrorEntry");
        assertEquals("bad", text(failed, "Id"));
        assertEquals("true", text(failed, "SenderFault"));
        assertEquals("InvalidMessageContents", text(failed, "Code"));
        assertNotBlank(text(failed, "Message"), "Message");

        awaitAttribute(broker, url, "ApproximateNumberOfMessagesDelayed", "1");

        // Batch-level error in Query form.
        error(
                http.query(
                        "Action",
                        "SendMessageBatch",
                        "QueueUrl",
                        url,
                        "SendMessageBatchRequestEntry.1.Id",
                        "x",
                        "SendMessageBatchRequestEntry.1.MessageBody",
                        "a",
                        "SendMessageBatchRequestEntry.2.Id",
                        "x",
                        "SendMessageBatchRequestEntry.2.MessageBody",
                        "b"),
                400,
                "Sender",
                "AWS.SimpleQueueService.BatchEntryIdsNotDistinct");
    }

    @Test
    void deleteAndVisibilityBatchesXmlShape() {
        String url = createQueue("qdelbatch");
        http.query("Action", "SendMessage", "QueueUrl", url, "MessageBody", "one");
        http.query("Action", "SendMessage", "QueueUrl", url, "MessageBody", "two");
        Element recv = ok(
                http.query("Action", "ReceiveMessage", "QueueUrl", url, "MaxNumberOfMessages", "10"),
                "ReceiveMessageResponse");
        List<Element> msgs = children(child(recv, "ReceiveMessageResult"), "Message");
        assertEquals(2, msgs.size());

        Element cmv = ok(
                http.query(
                        "Action",
                        "ChangeMessageVisibilityBatch",
                        "QueueUrl",
                        url,
                        "ChangeMessageVisibilityBatchRequestEntry.1.Id",
                        "c1",
                        "ChangeMessageVisibilityBatchRequestEntry.1.ReceiptHandle",
                        text(msgs.get(0), "ReceiptHandle"),
                        "ChangeMessageVisibilityBatchRequestEntry.1.VisibilityTimeout",
                        "60"),
                "ChangeMessageVisibilityBatchResponse");
        assertEquals(
                "c1", text(cmv, "ChangeMessageVisibilityBatchResult", "ChangeMessageVisibilityBatchResultEntry", "Id"));

        Element del = ok(
                http.query(
                        "Action",
                        "DeleteMessageBatch",
                        "QueueUrl",
                        url,
                        "DeleteMessageBatchRequestEntry.1.Id",
                        "d1",
                        "DeleteMessageBatchRequestEntry.1.ReceiptHandle",
                        text(msgs.get(0), "ReceiptHandle"),
                        "DeleteMessageBatchRequestEntry.2.Id",
                        "d2",
                        "DeleteMessageBatchRequestEntry.2.ReceiptHandle",
                        "garbage"),
                "DeleteMessageBatchResponse");
        Element result = child(del, "DeleteMessageBatchResult");
        assertEquals("d1", text(result, "DeleteMessageBatchResultEntry", "Id"));
        assertEquals("d2", text(result, "BatchResultErrorEntry", "Id"));
        assertEquals("ReceiptHandleIsInvalid", text(result, "BatchResultErrorEntry", "Code"));

        ok(
                http.query(
                        "Action",
                        "ChangeMessageVisibility",
                        "QueueUrl",
                        url,
                        "ReceiptHandle",
                        text(msgs.get(1), "ReceiptHandle"),
                        "VisibilityTimeout",
                        "0"),
                "ChangeMessageVisibilityResponse");
        ok(http.query("Action", "PurgeQueue", "QueueUrl", url), "PurgeQueueResponse");
    }

    @Test
    void nonExistentQueueErrorXml() {
        String missing = BrokerExtension.uniqueName("qmissing");
        error(
                http.query("Action", "GetQueueUrl", "QueueName", missing),
                400,
                "Sender",
                "AWS.SimpleQueueService.NonExistentQueue");
        error(
                http.query("Action", "SendMessage", "QueueUrl", broker.expectedQueueUrl(missing), "MessageBody", "x"),
                400,
                "Sender",
                "AWS.SimpleQueueService.NonExistentQueue");
    }

    @Test
    void queueAddressedByForeignHostUrlBareNameOrRequestPath() {
        String url = createQueue("qaddr");
        String name = BrokerExtension.nameOf(url);
        ok(
                http.query(
                        "Action",
                        "SendMessage",
                        "QueueUrl",
                        "https://sqs.eu-west-1.amazonaws.com/" + BrokerExtension.ACCOUNT + "/" + name,
                        "MessageBody",
                        "a"),
                "SendMessageResponse");
        ok(http.query("Action", "SendMessage", "QueueUrl", name, "MessageBody", "b"), "SendMessageResponse");

        // Older Query clients (AWS SDK for Java v1) post to the queue URL itself without a QueueUrl parameter.
        HttpResponse<String> byPath = http.send(HttpRequest.newBuilder(URI.create(url))
                .timeout(Duration.ofSeconds(10))
                .header("Content-Type", "application/x-www-form-urlencoded; charset=utf-8")
                .POST(HttpRequest.BodyPublishers.ofString(
                        RawHttp.form("Action", "SendMessage", "MessageBody", "c", "Version", "2012-11-05"),
                        StandardCharsets.UTF_8))
                .build());
        ok(byPath, "SendMessageResponse");
        awaitAttribute(broker, url, "ApproximateNumberOfMessages", "3");
    }

    @Test
    void unknownActionIsInvalidAction() {
        error(http.query("Action", "Frobnicate"), 400, "Sender", "InvalidAction");
    }

    @Test
    void missingActionIsInvalidAction() {
        // SQS answers a request that names no action as an unknown operation
        error(http.postForm(RawHttp.form("QueueName", "x", "Version", "2012-11-05")), 400, "Sender", "InvalidAction");
    }

    @Test
    void missingParametersAreMissingParameter() {
        error(http.query("Action", "SendMessage", "MessageBody", "no queue"), 400, "Sender", "MissingParameter");
        error(http.query("Action", "CreateQueue"), 400, "Sender", "MissingParameter");
        String url = createQueue("qmissingparam");
        error(http.query("Action", "SendMessage", "QueueUrl", url), 400, "Sender", "MissingParameter");
        error(http.query("Action", "DeleteMessage", "QueueUrl", url), 400, "Sender", "MissingParameter");
    }

    @Test
    void wrongTypesAreSenderErrorsNotServerErrors() {
        String url = createQueue("qtypes");
        error(
                http.query("Action", "ReceiveMessage", "QueueUrl", url, "MaxNumberOfMessages", "abc"),
                400,
                "Sender",
                null);
        error(http.query("Action", "ReceiveMessage", "QueueUrl", url, "WaitTimeSeconds", "1.5"), 400, "Sender", null);
        error(
                http.query("Action", "ReceiveMessage", "QueueUrl", url, "VisibilityTimeout", "99999999999999999999"),
                400,
                "Sender",
                null);
        error(
                http.query("Action", "SendMessage", "QueueUrl", url, "MessageBody", "x", "DelaySeconds", "soon"),
                400,
                "Sender",
                null);
        error(
                http.query("Action", "ReceiveMessage", "QueueUrl", url, "MaxNumberOfMessages", "11"),
                400,
                "Sender",
                "InvalidParameterValue");
    }

    @Test
    void malformedFormEncodingIsSenderError() {
        HttpResponse<String> r = http.postForm("Action=SendMessage&MessageBody=%ZZ%&Version=2012-11-05");
        assertTrue(r.statusCode() >= 400 && r.statusCode() < 500, "status " + r.statusCode() + ": " + r.body());
    }

    @Test
    void invalidMessageContentsInQuery() {
        String url = createQueue("qinvalid");
        error(
                http.query("Action", "SendMessage", "QueueUrl", url, "MessageBody", "bad\u0001"),
                400,
                "Sender",
                "InvalidMessageContents");
    }
}
