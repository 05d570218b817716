package io.sluice.it;

import static io.sluice.it.FifoSupport.bodies;
import static io.sluice.it.FifoSupport.createFifoQueue;
import static io.sluice.it.RawHttp.child;
import static io.sluice.it.RawHttp.children;
import static io.sluice.it.RawHttp.queryError;
import static io.sluice.it.RawHttp.queryOk;
import static io.sluice.it.RawHttp.text;
import static io.sluice.it.SqsAssert.INVALID_PARAMETER_VALUE;
import static io.sluice.it.SqsAssert.MISSING_PARAMETER;
import static io.sluice.it.SqsAssert.NON_EXISTENT_QUEUE;
import static io.sluice.it.SqsAssert.assertSqsError;
import static io.sluice.it.SqsAssert.awaitAttribute;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.w3c.dom.Element;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.MessageSystemAttributeNameForSends;
import software.amazon.awssdk.services.sqs.model.MessageSystemAttributeValue;
import software.amazon.awssdk.services.sqs.model.QueueDoesNotExistException;
import software.amazon.awssdk.services.sqs.model.SendMessageResponse;
import software.amazon.awssdk.services.sqs.model.SqsException;

/**
 * Behaviour compared with responses recorded from real SQS and with the SQS API reference:
 * JSON error types and texts, FIFO group visibility, a change of visibility after the timeout,
 * group ids on standard queues, AWSTraceHeader, the SSE-KMS attributes, Query over GET, and
 * JSON strings with control characters and entities. Each over the SDK (JSON) and raw Query.
 */
@Timeout(60)
class RecordedSqsBehaviourTest {

    @RegisterExtension
    static final BrokerExtension broker = new BrokerExtension();

    private static RawHttp http;

    @BeforeAll
    static void client() {
        http = new RawHttp(broker.baseUrl());
    }

    private static SqsClient sqs() {
        return broker.sqs();
    }

    /** A JSON error: status, the Query code in x-amzn-query-error, and the body's __type and message. */
    private static JsonObject jsonError(HttpResponse<String> r, int status, String queryCode, String type) {
        assertEquals(status, r.statusCode(), () -> "HTTP status; body: " + r.body());
        assertEquals(
                queryCode + ";Sender",
                r.headers().firstValue("x-amzn-query-error").orElse(null));
        JsonObject body = new JsonObject(r.body());
        assertEquals("com.amazonaws.sqs#" + type, body.getString("__type"), () -> "__type; body: " + r.body());
        return body;
    }

    private static HttpResponse<String> get(String pathAndQuery) {
        return http.send(HttpRequest.newBuilder(URI.create(broker.baseUrl() + pathAndQuery))
                .timeout(Duration.ofSeconds(15))
                .GET()
                .build());
    }

    private static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }

    // ------------------------------------------------------------------ JSON error types and texts

    @Test
    void jsonErrorTypesAreSqsExceptionNamesWhileTheQueryCodeStays() {
        String url = broker.createQueue("types");
        JsonObject tooMany = jsonError(
                http.json(
                        "AmazonSQS.ReceiveMessage",
                        new JsonObject()
                                .put("QueueUrl", url)
                                .put("MaxNumberOfMessages", 11)
                                .encode()),
                400,
                INVALID_PARAMETER_VALUE,
                "InvalidParameterValueException");
        assertEquals(
                "Value 11 for parameter MaxNumberOfMessages is invalid. Reason: Must be between 1 and 10, if provided.",
                tooMany.getString("message"));
        JsonObject missing = jsonError(
                http.json(
                        "AmazonSQS.SendMessage",
                        new JsonObject().put("QueueUrl", url).encode()),
                400,
                MISSING_PARAMETER,
                "MissingRequiredParameterException");
        assertEquals("The request must contain the parameter MessageBody.", missing.getString("message"));
        JsonObject gone = jsonError(
                http.json(
                        "AmazonSQS.GetQueueUrl",
                        new JsonObject()
                                .put("QueueName", BrokerExtension.uniqueName("nosuch"))
                                .encode()),
                400,
                NON_EXISTENT_QUEUE,
                "QueueDoesNotExist");
        assertEquals("The specified queue does not exist.", gone.getString("message"));
        jsonError(http.json("AmazonSQS.Frobnicate", "{}"), 400, "InvalidAction", "UnknownOperationException");
        jsonError(
                http.json(
                        "AmazonSQS.CreateQueue",
                        new JsonObject()
                                .put("QueueName", BrokerExtension.uniqueName("q"))
                                .put("Attributes", new JsonObject().put("Bogus", "1"))
                                .encode()),
                400,
                "InvalidAttributeName",
                "InvalidAttributeName");

        // The SDK still reports the Query code, and picks the modelled exception where there is one.
        SqsException e = assertSqsError(
                SqsException.class,
                INVALID_PARAMETER_VALUE,
                400,
                () -> sqs().receiveMessage(r -> r.queueUrl(url).maxNumberOfMessages(11)));
        assertEquals(
                "Value 11 for parameter MaxNumberOfMessages is invalid. Reason: Must be between 1 and 10, if provided.",
                e.awsErrorDetails().errorMessage());
        assertSqsError(SqsException.class, MISSING_PARAMETER, 400, () -> sqs().sendMessage(r -> r.queueUrl(url)));
        assertSqsError(
                QueueDoesNotExistException.class,
                NON_EXISTENT_QUEUE,
                400,
                () -> sqs().getQueueUrl(r -> r.queueName(BrokerExtension.uniqueName("nosuch"))));

        // Over Query the codes are unchanged, and a missing queue is worded as SQS words it there.
        Element queryGone = queryError(
                http.query("Action", "GetQueueUrl", "QueueName", BrokerExtension.uniqueName("nosuch")),
                400,
                NON_EXISTENT_QUEUE);
        assertEquals("The specified queue does not exist for this wsdl version.", text(queryGone, "Message"));
        Element queryTooMany = queryError(
                http.query("Action", "ReceiveMessage", "QueueUrl", url, "MaxNumberOfMessages", "11"),
                400,
                INVALID_PARAMETER_VALUE);
        assertEquals(
                "Value 11 for parameter MaxNumberOfMessages is invalid. Reason: Must be between 1 and 10, if provided.",
                text(queryTooMany, "Message"));
        queryError(http.query("Action", "SendMessage", "QueueUrl", url), 400, MISSING_PARAMETER);
    }

    // ------------------------------------------------------------------ FIFO groups

    @Test
    void aFifoGroupsInFlightMessagesShareOneVisibility() {
        String url = createFifoQueue(broker, "groupvis", Map.of("ContentBasedDeduplication", "true"));
        for (String b : List.of("a1", "a2", "a3")) {
            sqs().sendMessage(r -> r.queueUrl(url).messageBody(b).messageGroupId("A"));
        }
        List<Message> got = sqs().receiveMessage(
                        r -> r.queueUrl(url).maxNumberOfMessages(2).visibilityTimeout(60))
                .messages();
        assertEquals(List.of("a1", "a2"), bodies(got));
        awaitAttribute(broker, url, "ApproximateNumberOfMessagesNotVisible", "2");
        awaitAttribute(broker, url, "ApproximateNumberOfMessages", "1");
        assertTrue(
                sqs().receiveMessage(r -> r.queueUrl(url).maxNumberOfMessages(10))
                        .messages()
                        .isEmpty(),
                "the group is blocked while any of its messages is in flight");

        // Releasing the later message releases the group; it comes back from its head, in order.
        sqs().changeMessageVisibility(r ->
                r.queueUrl(url).receiptHandle(got.get(1).receiptHandle()).visibilityTimeout(0));
        awaitAttribute(broker, url, "ApproximateNumberOfMessagesNotVisible", "0");
        awaitAttribute(broker, url, "ApproximateNumberOfMessages", "3");
        List<Message> again = sqs().receiveMessage(
                        r -> r.queueUrl(url).maxNumberOfMessages(10).visibilityTimeout(60))
                .messages();
        assertEquals(List.of("a1", "a2", "a3"), bodies(again));

        // The same over Query: ChangeMessageVisibility on the first releases all three.
        queryOk(
                http.query(
                        "Action",
                        "ChangeMessageVisibility",
                        "QueueUrl",
                        url,
                        "ReceiptHandle",
                        again.get(0).receiptHandle(),
                        "VisibilityTimeout",
                        "0"),
                "ChangeMessageVisibility");
        Element result = child(
                queryOk(
                        http.query(
                                "Action",
                                "ReceiveMessage",
                                "QueueUrl",
                                url,
                                "MaxNumberOfMessages",
                                "10",
                                "VisibilityTimeout",
                                "1"),
                        "ReceiveMessage"),
                "ReceiveMessageResult");
        assertEquals(
                List.of("a1", "a2", "a3"),
                children(result, "Message").stream().map(m -> text(m, "Body")).toList());
        // ... and the timeout expiring does too.
        List<Message> afterExpiry = await().atMost(Duration.ofSeconds(5))
                .pollInterval(Duration.ofMillis(100))
                .until(
                        () -> sqs().receiveMessage(r ->
                                        r.queueUrl(url).maxNumberOfMessages(10).visibilityTimeout(0))
                                .messages(),
                        list -> !list.isEmpty());
        assertEquals(List.of("a1", "a2", "a3"), bodies(afterExpiry));
    }

    @Test
    void receivesWithVisibilityTimeoutZeroReturnAFifoGroupInOrder() {
        String url = createFifoQueue(broker, "vis0", Map.of("ContentBasedDeduplication", "true"));
        for (String b : List.of("a1", "a2", "a3")) {
            sqs().sendMessage(r -> r.queueUrl(url).messageBody(b).messageGroupId("A"));
        }
        for (int i = 0; i < 3; i++) {
            assertEquals(
                    List.of("a1", "a2", "a3"),
                    bodies(sqs().receiveMessage(
                                    r -> r.queueUrl(url).maxNumberOfMessages(10).visibilityTimeout(0))
                            .messages()));
            Element result = child(
                    queryOk(
                            http.query(
                                    "Action",
                                    "ReceiveMessage",
                                    "QueueUrl",
                                    url,
                                    "MaxNumberOfMessages",
                                    "2",
                                    "VisibilityTimeout",
                                    "0"),
                            "ReceiveMessage"),
                    "ReceiveMessageResult");
            assertEquals(
                    List.of("a1", "a2"),
                    children(result, "Message").stream()
                            .map(m -> text(m, "Body"))
                            .toList());
        }
        awaitAttribute(broker, url, "ApproximateNumberOfMessagesNotVisible", "0");
        awaitAttribute(broker, url, "ApproximateNumberOfMessages", "3");
    }

    // ------------------------------------------------------------------ visibility after the timeout

    @Test
    void changeVisibilityWithTheLatestHandleAfterTheTimeoutSucceedsOnAStandardQueue() {
        String url = broker.createQueue("latecmv");
        sqs().sendMessage(r -> r.queueUrl(url).messageBody("late"));
        Message m = sqs().receiveMessage(r -> r.queueUrl(url).visibilityTimeout(1))
                .messages()
                .get(0);
        awaitAttribute(broker, url, "ApproximateNumberOfMessages", "1"); // visible again, not received again
        sqs().changeMessageVisibility(
                        r -> r.queueUrl(url).receiptHandle(m.receiptHandle()).visibilityTimeout(60));
        awaitAttribute(broker, url, "ApproximateNumberOfMessagesNotVisible", "1");
        assertTrue(sqs().receiveMessage(r -> r.queueUrl(url)).messages().isEmpty(), "invisible for the new timeout");
        // over Query, back to visible at once
        queryOk(
                http.query(
                        "Action",
                        "ChangeMessageVisibility",
                        "QueueUrl",
                        url,
                        "ReceiptHandle",
                        m.receiptHandle(),
                        "VisibilityTimeout",
                        "0"),
                "ChangeMessageVisibility");
        Message again = sqs().receiveMessage(r -> r.queueUrl(url)
                        .visibilityTimeout(1)
                        .messageSystemAttributeNamesWithStrings("ApproximateReceiveCount"))
                .messages()
                .get(0);
        assertEquals("2", again.attributesAsStrings().get("ApproximateReceiveCount"));
        // the handle of the earlier receive is now outdated
        assertSqsError(
                SqsException.class,
                INVALID_PARAMETER_VALUE,
                400,
                () -> sqs().changeMessageVisibility(r ->
                        r.queueUrl(url).receiptHandle(m.receiptHandle()).visibilityTimeout(5)));
        // a FIFO handle expires with its timeout
        String fifo = createFifoQueue(broker, "latefifo", Map.of("ContentBasedDeduplication", "true"));
        sqs().sendMessage(r -> r.queueUrl(fifo).messageBody("f").messageGroupId("g"));
        Message f = sqs().receiveMessage(r -> r.queueUrl(fifo).visibilityTimeout(1))
                .messages()
                .get(0);
        awaitAttribute(broker, fifo, "ApproximateNumberOfMessages", "1");
        queryError(
                http.query(
                        "Action",
                        "ChangeMessageVisibility",
                        "QueueUrl",
                        fifo,
                        "ReceiptHandle",
                        f.receiptHandle(),
                        "VisibilityTimeout",
                        "5"),
                400,
                "AWS.SimpleQueueService.MessageNotInflight");
    }

    // ------------------------------------------------------------------ group ids on standard queues

    @Test
    void standardQueuesValidateAndReturnAMessageGroupId() {
        String url = broker.createQueue("fair");
        sqs().sendMessage(r -> r.queueUrl(url).messageBody("fair").messageGroupId("tenant-1"));
        Message m = sqs().receiveMessage(r ->
                        r.queueUrl(url).visibilityTimeout(0).messageSystemAttributeNamesWithStrings("MessageGroupId"))
                .messages()
                .get(0);
        assertEquals("tenant-1", m.attributesAsStrings().get("MessageGroupId"));
        Element result = child(
                queryOk(
                        http.query("Action", "ReceiveMessage", "QueueUrl", url, "AttributeName.1", "All"),
                        "ReceiveMessage"),
                "ReceiveMessageResult");
        boolean found = children(child(result, "Message"), "Attribute").stream()
                .anyMatch(a -> text(a, "Name").equals("MessageGroupId")
                        && text(a, "Value").equals("tenant-1"));
        assertTrue(found, "MessageGroupId among the system attributes over Query");

        for (String bad : List.of("", "x".repeat(129), "with space", "tab\t")) {
            assertSqsError(
                    SqsException.class,
                    INVALID_PARAMETER_VALUE,
                    400,
                    () -> sqs().sendMessage(
                                    r -> r.queueUrl(url).messageBody("b").messageGroupId(bad)));
            queryError(
                    http.query("Action", "SendMessage", "QueueUrl", url, "MessageBody", "b", "MessageGroupId", bad),
                    400,
                    INVALID_PARAMETER_VALUE);
        }
        sqs().sendMessage(r -> r.queueUrl(url).messageBody("max").messageGroupId("!~".repeat(64)));
        // without a group id, nothing is reported
        String plain = broker.createQueue("plain");
        sqs().sendMessage(r -> r.queueUrl(plain).messageBody("p"));
        Message p = sqs().receiveMessage(r -> r.queueUrl(plain).messageSystemAttributeNamesWithStrings("All"))
                .messages()
                .get(0);
        assertFalse(p.attributesAsStrings().containsKey("MessageGroupId"));
    }

    // ------------------------------------------------------------------ AWSTraceHeader

    @Test
    void awsTraceHeaderIsStoredAndReturned() {
        String url = broker.createQueue("trace");
        String header = "Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1";
        SendMessageResponse sent = sqs().sendMessage(r -> r.queueUrl(url)
                .messageBody("traced")
                .messageSystemAttributes(Map.of(
                        MessageSystemAttributeNameForSends.AWS_TRACE_HEADER,
                        MessageSystemAttributeValue.builder()
                                .dataType("String")
                                .stringValue(header)
                                .build())));
        assertTrue(sent.md5OfMessageSystemAttributes() != null
                && !sent.md5OfMessageSystemAttributes().isEmpty());
        Message m = sqs().receiveMessage(r ->
                        r.queueUrl(url).visibilityTimeout(0).messageSystemAttributeNamesWithStrings("AWSTraceHeader"))
                .messages()
                .get(0);
        assertEquals(header, m.attributesAsStrings().get("AWSTraceHeader"));

        Element sentQuery = child(
                queryOk(
                        http.query(
                                "Action",
                                "SendMessage",
                                "QueueUrl",
                                url,
                                "MessageBody",
                                "q",
                                "MessageSystemAttribute.1.Name",
                                "AWSTraceHeader",
                                "MessageSystemAttribute.1.Value.DataType",
                                "String",
                                "MessageSystemAttribute.1.Value.StringValue",
                                header),
                        "SendMessage"),
                "SendMessageResult");
        assertEquals(sent.md5OfMessageSystemAttributes(), text(sentQuery, "MD5OfMessageSystemAttributes"));
        Element result = child(
                queryOk(
                        http.query(
                                "Action",
                                "ReceiveMessage",
                                "QueueUrl",
                                url,
                                "MaxNumberOfMessages",
                                "10",
                                "MessageSystemAttributeName.1",
                                "AWSTraceHeader"),
                        "ReceiveMessage"),
                "ReceiveMessageResult");
        List<Element> messages = children(result, "Message");
        assertEquals(2, messages.size());
        for (Element msg : messages) {
            Element attribute = child(msg, "Attribute");
            assertEquals("AWSTraceHeader", text(attribute, "Name"));
            assertEquals(header, text(attribute, "Value"));
        }
        // a binary trace header is refused
        assertSqsError(
                SqsException.class,
                INVALID_PARAMETER_VALUE,
                400,
                () -> sqs().sendMessage(r -> r.queueUrl(url)
                        .messageBody("b")
                        .messageSystemAttributes(Map.of(
                                MessageSystemAttributeNameForSends.AWS_TRACE_HEADER,
                                MessageSystemAttributeValue.builder()
                                        .dataType("Binary")
                                        .binaryValue(SdkBytes.fromUtf8String("x"))
                                        .build()))));
    }

    // ------------------------------------------------------------------ SSE attributes

    @Test
    void kmsDataKeyReusePeriodIsShownOnlyWithSseKms() {
        String sqsManaged = broker.createQueue("ssesqs");
        assertFalse(broker.attributes(sqsManaged).containsKey("KmsDataKeyReusePeriodSeconds"));
        assertEquals("true", broker.attribute(sqsManaged, "SqsManagedSseEnabled"));
        String periodOnly = broker.createQueue("sseperiod", Map.of("KmsDataKeyReusePeriodSeconds", "600"));
        assertFalse(
                broker.attributes(periodOnly).containsKey("KmsDataKeyReusePeriodSeconds"),
                "no key, no SSE-KMS, nothing to show");
        String kms = broker.createQueue("ssekms", Map.of("KmsMasterKeyId", "alias/aws/sqs"));
        Map<String, String> all = broker.attributes(kms);
        assertEquals("300", all.get("KmsDataKeyReusePeriodSeconds"));
        assertEquals("alias/aws/sqs", all.get("KmsMasterKeyId"));
        Element attrs = child(
                queryOk(
                        http.query("Action", "GetQueueAttributes", "QueueUrl", periodOnly, "AttributeName.1", "All"),
                        "GetQueueAttributes"),
                "GetQueueAttributesResult");
        assertTrue(children(attrs, "Attribute").stream()
                .noneMatch(a -> text(a, "Name").equals("KmsDataKeyReusePeriodSeconds")));
        // naming a key later turns it on, with the period given before
        sqs().setQueueAttributes(
                        r -> r.queueUrl(periodOnly).attributesWithStrings(Map.of("KmsMasterKeyId", "alias/k")));
        assertEquals("600", broker.attributes(periodOnly).get("KmsDataKeyReusePeriodSeconds"));
    }

    // ------------------------------------------------------------------ Query over GET

    @Test
    void queryOverGetWorksAsAPost() {
        String name = BrokerExtension.uniqueName("getq");
        Element created = child(
                queryOk(get("/?Action=CreateQueue&Version=2012-11-05&QueueName=" + name), "CreateQueue"),
                "CreateQueueResult");
        String url = text(created, "QueueUrl");
        queryOk(
                get("/?Action=SendMessage&Version=2012-11-05&QueueUrl=" + enc(url) + "&MessageBody="
                        + enc("via get & more")),
                "SendMessage");
        // the queue URL's path stands for QueueUrl
        Element result = child(
                queryOk(
                        get("/" + BrokerExtension.ACCOUNT + "/" + name
                                + "?Action=ReceiveMessage&Version=2012-11-05&VisibilityTimeout=0"),
                        "ReceiveMessage"),
                "ReceiveMessageResult");
        assertEquals("via get & more", text(child(result, "Message"), "Body"));
        queryError(
                get("/?Action=GetQueueUrl&Version=2012-11-05&QueueName=" + BrokerExtension.uniqueName("none")),
                400,
                NON_EXISTENT_QUEUE);
        queryError(get("/?Action=Frobnicate&Version=2012-11-05"), 400, "InvalidAction");
        queryError(get("/"), 400, "InvalidAction");
        queryError(get("/?Version=2012-11-05"), 400, "InvalidAction");
        queryError(get("/" + BrokerExtension.ACCOUNT + "/" + name), 400, "InvalidAction");
        // and a POST without an action, likewise
        queryError(http.postForm("Version=2012-11-05"), 400, "InvalidAction");
    }

    // ------------------------------------------------------------------ JSON strings

    @Test
    void jsonStringsWithControlCharactersAndEntitiesRoundTripExactly() {
        String url = broker.createQueue("jsonstr");
        String body =
                "tab\there\r\nCRLF\rCR \"quoted\" back\\slash /slash &amp; &lt;x&gt; <y> ' \u00e9\u20ac\uD83D\uDE00 \u007f";
        String value = "\t&quot;<v>\r\n";
        HttpResponse<String> sent = http.json(
                "AmazonSQS.SendMessage",
                new JsonObject()
                        .put("QueueUrl", url)
                        .put("MessageBody", body)
                        .put(
                                "MessageAttributes",
                                new JsonObject()
                                        .put(
                                                "k",
                                                new JsonObject()
                                                        .put("DataType", "String")
                                                        .put("StringValue", value)))
                        .encode());
        assertEquals(200, sent.statusCode(), sent.body());
        // raw escapes as another JSON writer might put them
        HttpResponse<String> escaped = http.json(
                "AmazonSQS.SendMessage",
                "{\"QueueUrl\":\"" + url
                        + "\",\"MessageBody\":\"\\u0009\\u000d\\u000a\\u0026\\u003c\\u00e9\\ud83d\\ude00\\/\"}");
        assertEquals(200, escaped.statusCode(), escaped.body());

        HttpResponse<String> received = http.json(
                "AmazonSQS.ReceiveMessage",
                new JsonObject()
                        .put("QueueUrl", url)
                        .put("MaxNumberOfMessages", 10)
                        .put("VisibilityTimeout", 0)
                        .put("MessageAttributeNames", new JsonArray().add("All"))
                        .encode());
        assertEquals(200, received.statusCode(), received.body());
        JsonArray messages = new JsonObject(received.body()).getJsonArray("Messages");
        assertEquals(2, messages.size());
        List<String> bodies =
                messages.stream().map(o -> ((JsonObject) o).getString("Body")).toList();
        assertTrue(bodies.contains(body), () -> "round trip of " + body + " gave " + bodies);
        assertTrue(bodies.contains("\t\r\n&<\u00e9\uD83D\uDE00/"), () -> "escapes decoded: " + bodies);
        JsonObject withAttribute = messages.stream()
                .map(o -> (JsonObject) o)
                .filter(o -> o.getString("Body").equals(body))
                .findFirst()
                .orElseThrow();
        assertEquals(
                value,
                withAttribute
                        .getJsonObject("MessageAttributes")
                        .getJsonObject("k")
                        .getString("StringValue"));
        assertEquals(SqsAssert.md5OfBody(body), withAttribute.getString("MD5OfBody"));

        // the SDK and the Query protocol see the same characters
        List<String> viaSdk = bodies(sqs().receiveMessage(
                        r -> r.queueUrl(url).maxNumberOfMessages(10).visibilityTimeout(0))
                .messages());
        assertTrue(viaSdk.contains(body));
        Element result = child(
                queryOk(
                        http.query(
                                "Action",
                                "ReceiveMessage",
                                "QueueUrl",
                                url,
                                "MaxNumberOfMessages",
                                "10",
                                "VisibilityTimeout",
                                "0"),
                        "ReceiveMessage"),
                "ReceiveMessageResult");
        assertTrue(children(result, "Message").stream()
                .map(m -> text(m, "Body"))
                .toList()
                .contains(body));
    }
}
