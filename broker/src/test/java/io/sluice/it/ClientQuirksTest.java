package io.sluice.it;

import static io.sluice.it.FifoSupport.createFifoQueue;
import static io.sluice.it.RawHttp.child;
import static io.sluice.it.RawHttp.children;
import static io.sluice.it.RawHttp.queryError;
import static io.sluice.it.RawHttp.queryErrorMessage;
import static io.sluice.it.RawHttp.queryOk;
import static io.sluice.it.RawHttp.text;
import static io.sluice.it.SqsAssert.EMPTY_BATCH_REQUEST;
import static io.sluice.it.SqsAssert.INVALID_ATTRIBUTE_NAME;
import static io.sluice.it.SqsAssert.INVALID_ATTRIBUTE_VALUE;
import static io.sluice.it.SqsAssert.INVALID_MESSAGE_CONTENTS;
import static io.sluice.it.SqsAssert.INVALID_PARAMETER_VALUE;
import static io.sluice.it.SqsAssert.MISSING_PARAMETER;
import static io.sluice.it.SqsAssert.assertSqsError;
import static io.sluice.it.SqsAssert.md5OfBody;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.w3c.dom.Element;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.BatchResultErrorEntry;
import software.amazon.awssdk.services.sqs.model.EmptyBatchRequestException;
import software.amazon.awssdk.services.sqs.model.InvalidAttributeNameException;
import software.amazon.awssdk.services.sqs.model.InvalidAttributeValueException;
import software.amazon.awssdk.services.sqs.model.InvalidMessageContentsException;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.MessageAttributeValue;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchRequestEntry;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchResponse;
import software.amazon.awssdk.services.sqs.model.SqsException;

/**
 * What real clients send that a first version got wrong: botocore's bare empty lists over the
 * Query protocol ({@code Entries=}), FIFO details, the right error for an attribute's characters,
 * the request bound for a maximal message in form encoding, FifoQueue on SetQueueAttributes.
 * Each case over both protocols: the SDK (JSON) and raw Query posts.
 */
@Timeout(60)
class ClientQuirksTest {

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

    /** The body as botocore writes it: an empty list as its bare name with an empty value. */
    private static HttpResponse<String> postRaw(String encodedPairs) {
        return http.postForm(encodedPairs + "&Version=2012-11-05");
    }

    private static String enc(String s) {
        return RawHttp.form("x", s).substring(2);
    }

    // ------------------------------------------------------------------ empty lists over Query

    @Test
    void emptyBatchesAreEmptyBatchRequestOverBothProtocols() {
        String url = broker.createQueue("emptybatch");
        for (String action : List.of("SendMessageBatch", "DeleteMessageBatch", "ChangeMessageVisibilityBatch")) {
            queryError(postRaw("Action=" + action + "&QueueUrl=" + enc(url) + "&Entries="), 400, EMPTY_BATCH_REQUEST);
            // the Query prefix, bare, is the same empty list
            queryError(
                    postRaw("Action=" + action + "&QueueUrl=" + enc(url) + "&" + action + "RequestEntry="),
                    400,
                    EMPTY_BATCH_REQUEST);
        }
        assertSqsError(
                EmptyBatchRequestException.class,
                EMPTY_BATCH_REQUEST,
                400,
                () -> sqs().sendMessageBatch(r -> r.queueUrl(url).entries(List.of())));
        assertSqsError(
                EmptyBatchRequestException.class,
                EMPTY_BATCH_REQUEST,
                400,
                () -> sqs().deleteMessageBatch(r -> r.queueUrl(url).entries(List.of())));
        assertSqsError(
                EmptyBatchRequestException.class,
                EMPTY_BATCH_REQUEST,
                400,
                () -> sqs().changeMessageVisibilityBatch(r -> r.queueUrl(url).entries(List.of())));
    }

    @Test
    void emptyNameListsOfReceiveMeanNothingRequested() {
        String url = broker.createQueue("emptynames");
        sqs().sendMessage(r -> r.queueUrl(url)
                .messageBody("hello")
                .messageAttributes(Map.of(
                        "k",
                        MessageAttributeValue.builder()
                                .dataType("String")
                                .stringValue("v")
                                .build())));
        Element result = child(
                queryOk(
                        postRaw(
                                "Action=ReceiveMessage&QueueUrl=" + enc(url)
                                        + "&MessageAttributeNames=&AttributeNames=&MessageSystemAttributeNames=&VisibilityTimeout=0"),
                        "ReceiveMessage"),
                "ReceiveMessageResult");
        Element message = child(result, "Message");
        assertEquals("hello", text(message, "Body"));
        assertTrue(children(message, "MessageAttribute").isEmpty(), "no attributes were requested");
        assertTrue(children(message, "Attribute").isEmpty(), "no system attributes were requested");
        // the Query prefixes, bare, likewise
        Element again = child(
                queryOk(
                        postRaw(
                                "Action=ReceiveMessage&QueueUrl=" + enc(url)
                                        + "&MessageAttributeName=&AttributeName=&MessageSystemAttributeName=&VisibilityTimeout=0"),
                        "ReceiveMessage"),
                "ReceiveMessageResult");
        assertTrue(children(child(again, "Message"), "MessageAttribute").isEmpty());

        Message viaSdk = sqs().receiveMessage(r -> r.queueUrl(url)
                        .messageAttributeNames(List.of())
                        .attributeNamesWithStrings(List.of())
                        .messageSystemAttributeNamesWithStrings(List.of()))
                .messages()
                .get(0);
        assertTrue(viaSdk.messageAttributes().isEmpty());
        assertTrue(viaSdk.attributes().isEmpty());
    }

    @Test
    void emptyNameListsOfOtherActionsAreNoItems() {
        String url = broker.createQueue("emptyothers");
        Element attrs = child(
                queryOk(
                        postRaw("Action=GetQueueAttributes&QueueUrl=" + enc(url) + "&AttributeNames="),
                        "GetQueueAttributes"),
                "GetQueueAttributesResult");
        assertTrue(children(attrs, "Attribute").isEmpty(), "no attribute asked, none reported");
        assertTrue(sqs().getQueueAttributes(r -> r.queueUrl(url).attributeNamesWithStrings(List.of()))
                .attributes()
                .isEmpty());
        // Calls that need at least one item say which parameter is missing, never SerializationException.
        queryError(postRaw("Action=UntagQueue&QueueUrl=" + enc(url) + "&TagKeys="), 400, MISSING_PARAMETER);
        queryError(postRaw("Action=UntagQueue&QueueUrl=" + enc(url) + "&TagKey="), 400, MISSING_PARAMETER);
        queryError(
                postRaw("Action=AddPermission&QueueUrl=" + enc(url)
                        + "&Label=l&AWSAccountIds=&ActionName.1=SendMessage"),
                400,
                MISSING_PARAMETER);
        queryError(
                postRaw("Action=AddPermission&QueueUrl=" + enc(url) + "&Label=l&AWSAccountId.1=111122223333&Actions="),
                400,
                MISSING_PARAMETER);
        assertSqsError(
                SqsException.class,
                MISSING_PARAMETER,
                400,
                () -> sqs().untagQueue(r -> r.queueUrl(url).tagKeys(List.of())));
        assertSqsError(
                SqsException.class,
                MISSING_PARAMETER,
                400,
                () -> sqs().addPermission(r ->
                        r.queueUrl(url).label("l").awsAccountIds(List.of()).actions("SendMessage")));
        // An empty map written the same way is no entries either.
        queryOk(postRaw("Action=TagQueue&QueueUrl=" + enc(url) + "&Tags=&Tag.1.Key=team&Tag.1.Value=core"), "TagQueue");
        assertEquals(
                Map.of("team", "core"),
                sqs().listQueueTags(r -> r.queueUrl(url)).tags());
    }

    // ------------------------------------------------------------------ FIFO send details

    @Test
    void fifoAcceptsDelaySecondsZeroAndRefusesAnyOtherPerMessageDelay() {
        String url = createFifoQueue(broker, "delay0", Map.of("ContentBasedDeduplication", "true"));
        sqs().sendMessage(r ->
                r.queueUrl(url).messageBody("a").messageGroupId("g").delaySeconds(0));
        queryOk(
                http.query(
                        "Action",
                        "SendMessage",
                        "QueueUrl",
                        url,
                        "MessageBody",
                        "b",
                        "MessageGroupId",
                        "g",
                        "DelaySeconds",
                        "0"),
                "SendMessage");
        SendMessageBatchResponse batch = sqs().sendMessageBatch(r -> r.queueUrl(url)
                .entries(
                        SendMessageBatchRequestEntry.builder()
                                .id("zero")
                                .messageBody("c")
                                .messageGroupId("g")
                                .delaySeconds(0)
                                .build(),
                        SendMessageBatchRequestEntry.builder()
                                .id("five")
                                .messageBody("d")
                                .messageGroupId("g")
                                .delaySeconds(5)
                                .build()));
        assertEquals(
                List.of("zero"), batch.successful().stream().map(e -> e.id()).toList());
        assertEquals(INVALID_PARAMETER_VALUE, batch.failed().get(0).code());

        assertSqsError(
                SqsException.class,
                INVALID_PARAMETER_VALUE,
                400,
                () -> sqs().sendMessage(r ->
                        r.queueUrl(url).messageBody("e").messageGroupId("g").delaySeconds(5)));
        queryError(
                http.query(
                        "Action",
                        "SendMessage",
                        "QueueUrl",
                        url,
                        "MessageBody",
                        "f",
                        "MessageGroupId",
                        "g",
                        "DelaySeconds",
                        "1"),
                400,
                INVALID_PARAMETER_VALUE);
        // the three accepted messages, visible at once and in order
        List<String> bodies = new ArrayList<>();
        for (Message m : sqs().receiveMessage(r -> r.queueUrl(url).maxNumberOfMessages(10))
                .messages()) {
            bodies.add(m.body());
        }
        assertEquals(List.of("a", "b", "c"), bodies);
    }

    @Test
    void presentButEmptyFifoIdsAreInvalidValuesAndAbsentOnesMissing() {
        String url = createFifoQueue(broker, "emptyids");
        assertSqsError(
                SqsException.class,
                INVALID_PARAMETER_VALUE,
                400,
                () -> sqs().sendMessage(r ->
                        r.queueUrl(url).messageBody("a").messageGroupId("").messageDeduplicationId("d")));
        assertSqsError(
                SqsException.class,
                INVALID_PARAMETER_VALUE,
                400,
                () -> sqs().sendMessage(r ->
                        r.queueUrl(url).messageBody("a").messageGroupId("g").messageDeduplicationId("")));
        assertSqsError(
                SqsException.class,
                MISSING_PARAMETER,
                400,
                () -> sqs().sendMessage(r -> r.queueUrl(url).messageBody("a").messageDeduplicationId("d")));
        assertSqsError(
                SqsException.class,
                INVALID_PARAMETER_VALUE,
                400,
                () -> sqs().receiveMessage(r -> r.queueUrl(url).receiveRequestAttemptId("")));

        queryError(
                http.query(
                        "Action",
                        "SendMessage",
                        "QueueUrl",
                        url,
                        "MessageBody",
                        "a",
                        "MessageGroupId",
                        "",
                        "MessageDeduplicationId",
                        "d"),
                400,
                INVALID_PARAMETER_VALUE);
        queryError(
                http.query(
                        "Action",
                        "SendMessage",
                        "QueueUrl",
                        url,
                        "MessageBody",
                        "a",
                        "MessageGroupId",
                        "g",
                        "MessageDeduplicationId",
                        ""),
                400,
                INVALID_PARAMETER_VALUE);
        queryError(
                http.query("Action", "SendMessage", "QueueUrl", url, "MessageBody", "a", "MessageDeduplicationId", "d"),
                400,
                MISSING_PARAMETER);

        SendMessageBatchResponse batch = sqs().sendMessageBatch(r -> r.queueUrl(url)
                .entries(
                        SendMessageBatchRequestEntry.builder()
                                .id("g")
                                .messageBody("x")
                                .messageGroupId("")
                                .messageDeduplicationId("1")
                                .build(),
                        SendMessageBatchRequestEntry.builder()
                                .id("d")
                                .messageBody("y")
                                .messageGroupId("g")
                                .messageDeduplicationId("")
                                .build()));
        assertTrue(batch.successful().isEmpty());
        assertEquals(
                List.of(INVALID_PARAMETER_VALUE, INVALID_PARAMETER_VALUE),
                batch.failed().stream().map(BatchResultErrorEntry::code).toList());
    }

    // ------------------------------------------------------------------ characters

    @Test
    void invalidCharactersInAnAttributeAreAnInvalidValueInTheBodyInvalidContents() {
        String url = broker.createQueue("chars");
        MessageAttributeValue bad = MessageAttributeValue.builder()
                .dataType("String")
                .stringValue("a\u0001b")
                .build();
        assertSqsError(
                SqsException.class,
                INVALID_PARAMETER_VALUE,
                400,
                () -> sqs().sendMessage(r -> r.queueUrl(url).messageBody("ok").messageAttributes(Map.of("k", bad))));
        assertSqsError(
                InvalidMessageContentsException.class,
                INVALID_MESSAGE_CONTENTS,
                400,
                () -> sqs().sendMessage(r -> r.queueUrl(url).messageBody("a\u0001b")));
        queryError(
                http.query(
                        "Action",
                        "SendMessage",
                        "QueueUrl",
                        url,
                        "MessageBody",
                        "ok",
                        "MessageAttribute.1.Name",
                        "k",
                        "MessageAttribute.1.Value.DataType",
                        "String",
                        "MessageAttribute.1.Value.StringValue",
                        "a\u0001b"),
                400,
                INVALID_PARAMETER_VALUE);
        queryError(
                http.query("Action", "SendMessage", "QueueUrl", url, "MessageBody", "a\uFFFEb"),
                400,
                INVALID_MESSAGE_CONTENTS);
        queryError(
                http.query(
                        "Action",
                        "SendMessage",
                        "QueueUrl",
                        url,
                        "MessageBody",
                        "ok",
                        "MessageSystemAttribute.1.Name",
                        "AWSTraceHeader",
                        "MessageSystemAttribute.1.Value.DataType",
                        "String",
                        "MessageSystemAttribute.1.Value.StringValue",
                        "Root=\u0002"),
                400,
                INVALID_PARAMETER_VALUE);

        SendMessageBatchResponse batch = sqs().sendMessageBatch(r -> r.queueUrl(url)
                .entries(
                        SendMessageBatchRequestEntry.builder()
                                .id("attr")
                                .messageBody("ok")
                                .messageAttributes(Map.of("k", bad))
                                .build(),
                        SendMessageBatchRequestEntry.builder()
                                .id("body")
                                .messageBody("a\u0001b")
                                .build(),
                        SendMessageBatchRequestEntry.builder()
                                .id("fine")
                                .messageBody("fine")
                                .build()));
        assertEquals(
                List.of("fine"), batch.successful().stream().map(e -> e.id()).toList());
        assertEquals(
                Map.of("attr", INVALID_PARAMETER_VALUE, "body", INVALID_MESSAGE_CONTENTS),
                Map.of(
                        batch.failed().get(0).id(),
                        batch.failed().get(0).code(),
                        batch.failed().get(1).id(),
                        batch.failed().get(1).code()));
        assertEquals("1", broker.attribute(url, "ApproximateNumberOfMessages"));
    }

    // ------------------------------------------------------------------ request size

    @Test
    void aMessageTooLongInFormEncodingIsInvalidParameterValueNotTooLarge() {
        String url = broker.createQueue("long2byte");
        String twoByte = "\u00e9"; // 2 bytes in UTF-8, 6 once percent-encoded
        String tooLong = twoByte.repeat(512 * 1024 + 1); // 1 MiB + 2 bytes
        String maximal = twoByte.repeat(512 * 1024); // exactly 1 MiB

        String message = queryErrorMessage(
                http.query("Action", "SendMessage", "QueueUrl", url, "MessageBody", tooLong),
                400,
                INVALID_PARAMETER_VALUE);
        assertTrue(message.contains("Message must be shorter than 1048576 bytes"), message);
        assertSqsError(
                SqsException.class,
                INVALID_PARAMETER_VALUE,
                400,
                () -> sqs().sendMessage(r -> r.queueUrl(url).messageBody(tooLong)));

        Element sent = child(
                queryOk(http.query("Action", "SendMessage", "QueueUrl", url, "MessageBody", maximal), "SendMessage"),
                "SendMessageResult");
        assertEquals(md5OfBody(maximal), text(sent, "MD5OfMessageBody"));

        // A batch of 1 MiB in total, all 2-byte characters, with attributes, in form encoding.
        String quarter = twoByte.repeat(128 * 1024 - 64);
        List<String> pairs = new ArrayList<>(List.of("Action", "SendMessageBatch", "QueueUrl", url));
        for (int i = 1; i <= 4; i++) {
            String p = "SendMessageBatchRequestEntry." + i + ".";
            pairs.addAll(List.of(
                    p + "Id",
                    "e" + i,
                    p + "MessageBody",
                    quarter,
                    p + "MessageAttribute.1.Name",
                    "name",
                    p + "MessageAttribute.1.Value.DataType",
                    "String",
                    p + "MessageAttribute.1.Value.StringValue",
                    twoByte.repeat(40)));
        }
        Element result =
                child(queryOk(http.query(pairs.toArray(String[]::new)), "SendMessageBatch"), "SendMessageBatchResult");
        assertEquals(
                4,
                children(result, "SendMessageBatchResultEntry").size(),
                () -> "batch: " + RawHttp.childNames(result));
    }

    // ------------------------------------------------------------------ FifoQueue on SetQueueAttributes

    @Test
    void fifoQueueAttributeCannotBeSetAfterCreation() {
        String fifo = createFifoQueue(broker, "setfifo");
        String standard = broker.createQueue("setstd");
        for (String value : List.of("true", "false")) {
            assertSqsError(
                    InvalidAttributeValueException.class,
                    INVALID_ATTRIBUTE_VALUE,
                    400,
                    () -> sqs().setQueueAttributes(
                                    r -> r.queueUrl(fifo).attributesWithStrings(Map.of("FifoQueue", value))));
            assertSqsError(
                    InvalidAttributeNameException.class,
                    INVALID_ATTRIBUTE_NAME,
                    400,
                    () -> sqs().setQueueAttributes(
                                    r -> r.queueUrl(standard).attributesWithStrings(Map.of("FifoQueue", value))));
            queryError(
                    http.query(
                            "Action",
                            "SetQueueAttributes",
                            "QueueUrl",
                            fifo,
                            "Attribute.1.Name",
                            "FifoQueue",
                            "Attribute.1.Value",
                            value),
                    400,
                    INVALID_ATTRIBUTE_VALUE);
            queryError(
                    http.query(
                            "Action",
                            "SetQueueAttributes",
                            "QueueUrl",
                            standard,
                            "Attribute.1.Name",
                            "FifoQueue",
                            "Attribute.1.Value",
                            value),
                    400,
                    INVALID_ATTRIBUTE_NAME);
        }
        assertEquals("true", broker.attribute(fifo, "FifoQueue"));
        // a FIFO-only attribute on a standard queue stays an unknown name
        assertSqsError(
                InvalidAttributeNameException.class,
                INVALID_ATTRIBUTE_NAME,
                400,
                () -> sqs().setQueueAttributes(r ->
                        r.queueUrl(standard).attributesWithStrings(Map.of("ContentBasedDeduplication", "true"))));
    }
}
