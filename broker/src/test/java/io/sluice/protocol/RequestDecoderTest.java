package io.sluice.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.queue.ErrorCode;
import io.sluice.queue.SqsException;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RequestDecoderTest {
    private static final String FORM = "application/x-www-form-urlencoded; charset=utf-8";

    private static SqsRequest form(String body) {
        return RequestDecoder.decode("/", null, FORM, null, Buffer.buffer(body));
    }

    private static JsonObject tree(String body) {
        return form(body).params().json();
    }

    private static SqsException fails(Runnable r) {
        return assertThrows(SqsException.class, r::run);
    }

    @Test
    void queryScalarsAreKeptAndActionIsConsumed() {
        SqsRequest r = form("Action=SendMessage&QueueUrl=http%3A%2F%2Fh%2F1%2Fq&MessageBody=a+b%26c&DelaySeconds=5");
        assertEquals(WireProtocol.QUERY, r.protocol());
        assertEquals(SqsAction.SEND_MESSAGE, r.action());
        assertEquals(
                new JsonObject()
                        .put("QueueUrl", "http://h/1/q")
                        .put("MessageBody", "a b&c")
                        .put("DelaySeconds", "5"),
                r.params().json());
    }

    @Test
    void queryStringAndBodyMergeWithBodyWinning() {
        SqsRequest r = RequestDecoder.decode(
                "/",
                "Action=ListQueues&QueueNamePrefix=url&MaxResults=3",
                "application/x-www-form-urlencoded",
                null,
                Buffer.buffer("QueueNamePrefix=body"));
        assertEquals(SqsAction.LIST_QUEUES, r.action());
        assertEquals("body", r.params().optionalString("QueueNamePrefix"));
        assertEquals(3, r.params().optionalInt("MaxResults"));
    }

    @Test
    void bodyOfOtherContentTypeIsIgnored() {
        SqsRequest r =
                RequestDecoder.decode("/", "Action=ListQueues", "text/plain", null, Buffer.buffer("Action=Bogus"));
        assertEquals(SqsAction.LIST_QUEUES, r.action());
    }

    @Test
    void attributesBecomeAMapInIndexOrder() {
        JsonObject t = tree("Action=CreateQueue&QueueName=q"
                + "&Attribute.2.Name=DelaySeconds&Attribute.2.Value=10"
                + "&Attribute.1.Name=VisibilityTimeout&Attribute.1.Value=60"
                + "&Attribute.7.Name=FifoQueue&Attribute.7.Value=true");
        assertEquals(
                List.of("VisibilityTimeout", "DelaySeconds", "FifoQueue"),
                List.copyOf(t.getJsonObject("Attributes").fieldNames()));
        assertEquals("10", t.getJsonObject("Attributes").getString("DelaySeconds"));
        assertEquals("q", t.getString("QueueName"));
    }

    @Test
    void bareEmptyListsAndMapsAsBotocoreSendsThemAreEmpty() {
        JsonObject batch = tree("Action=SendMessageBatch&QueueUrl=q&Entries=");
        assertEquals(new JsonArray(), batch.getJsonArray("Entries"));
        assertEquals(
                new JsonArray(),
                tree("Action=DeleteMessageBatch&QueueUrl=q&DeleteMessageBatchRequestEntry=")
                        .getJsonArray("Entries"));
        JsonObject receive = tree("Action=ReceiveMessage&QueueUrl=q&MessageAttributeNames=&AttributeName="
                + "&MessageSystemAttributeNames=");
        assertEquals(new JsonArray(), receive.getJsonArray("MessageAttributeNames"));
        assertEquals(new JsonArray(), receive.getJsonArray("AttributeNames"));
        assertEquals(new JsonArray(), receive.getJsonArray("MessageSystemAttributeNames"));
        assertEquals(
                new JsonArray(), tree("Action=UntagQueue&QueueUrl=q&TagKeys=").getJsonArray("TagKeys"));
        JsonObject permission = tree("Action=AddPermission&QueueUrl=q&AWSAccountIds=&Actions=");
        assertEquals(new JsonArray(), permission.getJsonArray("AWSAccountIds"));
        assertEquals(new JsonArray(), permission.getJsonArray("Actions"));
        assertEquals(
                new JsonObject(),
                tree("Action=CreateQueue&QueueName=q&Attributes=&Tags=").getJsonObject("Attributes"));
        assertEquals(
                new JsonObject(), tree("Action=CreateQueue&QueueName=q&Tags=").getJsonObject("tags"));
        // items given as well win over the bare name, in either order
        assertEquals(
                1,
                tree("Action=SendMessageBatch&QueueUrl=q&SendMessageBatchRequestEntry.1.Id=a&Entries=")
                        .getJsonArray("Entries")
                        .size());
        // a scalar that happens to be empty stays a scalar
        assertEquals("", tree("Action=SendMessage&QueueUrl=q&MessageBody=").getString("MessageBody"));
    }

    @Test
    void stringListsAreOrderedNumericallyWithGaps() {
        JsonObject t = tree("Action=ReceiveMessage&QueueUrl=u"
                + "&AttributeName.10=SentTimestamp&AttributeName.2=SenderId&AttributeName.1=All"
                + "&MessageAttributeName.1=color&MessageSystemAttributeName.1=AWSTraceHeader");
        assertEquals(new JsonArray().add("All").add("SenderId").add("SentTimestamp"), t.getJsonArray("AttributeNames"));
        assertEquals(new JsonArray().add("color"), t.getJsonArray("MessageAttributeNames"));
        assertEquals(new JsonArray().add("AWSTraceHeader"), t.getJsonArray("MessageSystemAttributeNames"));
    }

    @Test
    void messageAndSystemAttributesBecomeValueObjects() {
        JsonObject t = tree(
                "Action=SendMessage&QueueUrl=u&MessageBody=x"
                        + "&MessageAttribute.1.Name=color&MessageAttribute.1.Value.StringValue=blue"
                        + "&MessageAttribute.1.Value.DataType=String"
                        + "&MessageAttribute.2.Name=blob&MessageAttribute.2.Value.BinaryValue=AAEC"
                        + "&MessageAttribute.2.Value.DataType=Binary"
                        + "&MessageAttribute.3.Name=list&MessageAttribute.3.Value.DataType=String"
                        + "&MessageAttribute.3.Value.StringListValue.2=b&MessageAttribute.3.Value.StringListValue.1=a"
                        + "&MessageSystemAttribute.1.Name=AWSTraceHeader"
                        + "&MessageSystemAttribute.1.Value.StringValue=Root%3D1&MessageSystemAttribute.1.Value.DataType=String");
        JsonObject attrs = t.getJsonObject("MessageAttributes");
        assertEquals(
                new JsonObject().put("StringValue", "blue").put("DataType", "String"), attrs.getJsonObject("color"));
        assertEquals(
                new JsonObject().put("BinaryValue", "AAEC").put("DataType", "Binary"), attrs.getJsonObject("blob"));
        assertEquals(
                new JsonArray().add("a").add("b"), attrs.getJsonObject("list").getJsonArray("StringListValues"));
        assertEquals(
                new JsonObject().put("StringValue", "Root=1").put("DataType", "String"),
                t.getJsonObject("MessageSystemAttributes").getJsonObject("AWSTraceHeader"));
    }

    @Test
    void tagsTagKeysAccountsAndActions() {
        JsonObject tag = tree("Action=TagQueue&QueueUrl=u&Tag.1.Key=team&Tag.1.Value=core&Tag.2.Key=env&Tag.2.Value=");
        assertEquals(new JsonObject().put("team", "core").put("env", ""), tag.getJsonObject("Tags"));
        JsonObject untag = tree("Action=UntagQueue&QueueUrl=u&TagKey.2=env&TagKey.1=team");
        assertEquals(new JsonArray().add("team").add("env"), untag.getJsonArray("TagKeys"));
        JsonObject perm = tree("Action=AddPermission&QueueUrl=u&Label=l&AWSAccountId.1=111&AWSAccountId.2=222"
                + "&ActionName.1=SendMessage&ActionName.2=ReceiveMessage");
        assertEquals(new JsonArray().add("111").add("222"), perm.getJsonArray("AWSAccountIds"));
        assertEquals(new JsonArray().add("SendMessage").add("ReceiveMessage"), perm.getJsonArray("Actions"));
    }

    @Test
    void createQueueTagsUseTheJsonProtocolsLowercaseName() {
        JsonObject t = tree("Action=CreateQueue&QueueName=q&Tag.1.Key=team&Tag.1.Value=core");
        assertEquals(new JsonObject().put("team", "core"), t.getJsonObject("tags"));
        assertFalse(t.containsKey("Tags"));
    }

    @Test
    void fullSendMessageBatchInQueryForm() {
        String body = "Action=SendMessageBatch&Version=2012-11-05&QueueUrl=http%3A%2F%2Flocalhost%2F000000000000%2Fq"
                + "&SendMessageBatchRequestEntry.2.Id=second"
                + "&SendMessageBatchRequestEntry.2.MessageBody=two"
                + "&SendMessageBatchRequestEntry.2.DelaySeconds=3"
                + "&SendMessageBatchRequestEntry.2.MessageAttribute.1.Name=color"
                + "&SendMessageBatchRequestEntry.2.MessageAttribute.1.Value.StringValue=red"
                + "&SendMessageBatchRequestEntry.2.MessageAttribute.1.Value.DataType=String"
                + "&SendMessageBatchRequestEntry.2.MessageAttribute.2.Name=n"
                + "&SendMessageBatchRequestEntry.2.MessageAttribute.2.Value.StringValue=42"
                + "&SendMessageBatchRequestEntry.2.MessageAttribute.2.Value.DataType=Number"
                + "&SendMessageBatchRequestEntry.1.Id=first"
                + "&SendMessageBatchRequestEntry.1.MessageBody=one%0D%0Aline"
                + "&SendMessageBatchRequestEntry.1.MessageGroupId=g"
                + "&SendMessageBatchRequestEntry.1.MessageSystemAttribute.1.Name=AWSTraceHeader"
                + "&SendMessageBatchRequestEntry.1.MessageSystemAttribute.1.Value.StringValue=t"
                + "&SendMessageBatchRequestEntry.1.MessageSystemAttribute.1.Value.DataType=String";
        SqsRequest r = form(body);
        assertEquals(SqsAction.SEND_MESSAGE_BATCH, r.action());
        assertEquals("http://localhost/000000000000/q", r.params().requiredString("QueueUrl"));
        List<Params> entries = r.params().objectList("Entries");
        assertEquals(2, entries.size());

        Params first = entries.get(0);
        assertEquals("first", first.requiredString("Id"));
        assertEquals("one\r\nline", first.requiredString("MessageBody"));
        assertEquals("g", first.optionalString("MessageGroupId"));
        assertTrue(first.objectMap("MessageAttributes").isEmpty());
        assertEquals(
                "t",
                first.objectMap("MessageSystemAttributes").get("AWSTraceHeader").requiredString("StringValue"));

        Params second = entries.get(1);
        assertEquals("second", second.requiredString("Id"));
        assertEquals(3, second.optionalInt("DelaySeconds"));
        Map<String, Params> attrs = second.objectMap("MessageAttributes");
        assertEquals(List.of("color", "n"), List.copyOf(attrs.keySet()));
        assertEquals("red", attrs.get("color").requiredString("StringValue"));
        assertEquals("Number", attrs.get("n").requiredString("DataType"));
        assertFalse(r.params().has("SendMessageBatchRequestEntry.1.Id"));
    }

    @Test
    void deleteAndChangeVisibilityBatchEntries() {
        JsonObject del = tree("Action=DeleteMessageBatch&QueueUrl=u"
                + "&DeleteMessageBatchRequestEntry.1.Id=a&DeleteMessageBatchRequestEntry.1.ReceiptHandle=r1");
        assertEquals(
                new JsonArray().add(new JsonObject().put("Id", "a").put("ReceiptHandle", "r1")),
                del.getJsonArray("Entries"));
        JsonObject chg = tree("Action=ChangeMessageVisibilityBatch&QueueUrl=u"
                + "&ChangeMessageVisibilityBatchRequestEntry.3.Id=b"
                + "&ChangeMessageVisibilityBatchRequestEntry.3.ReceiptHandle=r2"
                + "&ChangeMessageVisibilityBatchRequestEntry.3.VisibilityTimeout=30");
        Params entry = new Params(chg).objectList("Entries").get(0);
        assertEquals(30, entry.optionalInt("VisibilityTimeout"));
    }

    @Test
    void unknownDottedParametersAreKeptVerbatim() {
        JsonObject t = tree("Action=ListQueues&Foo.1.Bar=x&Attribute.x.Name=y");
        assertEquals("x", t.getString("Foo.1.Bar"));
        assertEquals("y", t.getString("Attribute.x.Name"));
    }

    @Test
    void queueUrlComesFromThePathWhenAbsent() {
        SqsRequest r = RequestDecoder.decode(
                "/000000000000/orders", "Action=GetQueueAttributes&AttributeName.1=All", null, null, null);
        assertEquals("/000000000000/orders", r.params().requiredString("QueueUrl"));
        SqsRequest explicit = RequestDecoder.decode(
                "/000000000000/orders",
                null,
                FORM,
                null,
                Buffer.buffer("Action=PurgeQueue&QueueUrl=http%3A%2F%2Fx%2F1%2Fother"));
        assertEquals("http://x/1/other", explicit.params().requiredString("QueueUrl"));
        SqsRequest root = RequestDecoder.decode("/", "Action=ListQueues", null, null, null);
        assertFalse(root.params().has("QueueUrl"));
    }

    @Test
    void missingActionIsRefused() {
        SqsException e = fails(() -> form("QueueName=q"));
        assertEquals(ErrorCode.INVALID_ACTION, e.code(), "SQS: a request without an action is an unknown operation");
        assertEquals(
                ErrorCode.INVALID_ACTION,
                fails(() -> RequestDecoder.decode("/", null, null, null, null)).code());
    }

    @Test
    void unknownActionIsRefusedInBothProtocols() {
        SqsException q = fails(() -> form("Action=Foo"));
        assertEquals(ErrorCode.INVALID_ACTION, q.code());
        assertEquals("The action Foo is not valid for this endpoint.", q.getMessage());
        SqsException j = fails(() ->
                RequestDecoder.decode("/", null, "application/x-amz-json-1.0", "AmazonSQS.Foo", Buffer.buffer("{}")));
        assertEquals(ErrorCode.INVALID_ACTION, j.code());
        assertEquals("The action Foo is not valid for this endpoint.", j.getMessage());
        assertEquals(
                ErrorCode.INVALID_ACTION,
                fails(() -> RequestDecoder.decode(
                                "/", null, null, "DynamoDB_20120810.SendMessage", Buffer.buffer("{}")))
                        .code());
    }

    /** Found by the hostile-input fuzzing: an empty X-Amz-Target got a Query answer on success, a JSON one on error. */
    @Test
    void anEmptyTargetHeaderIsAQueryRequestEverywhere() {
        assertEquals(WireProtocol.QUERY, RequestDecoder.protocolOf(null));
        assertEquals(WireProtocol.QUERY, RequestDecoder.protocolOf(""));
        assertEquals(WireProtocol.JSON, RequestDecoder.protocolOf("AmazonSQS.ListQueues"));
        assertEquals(WireProtocol.JSON, RequestDecoder.protocolOf("Bogus"));
        SqsRequest r = RequestDecoder.decode("/", null, FORM, "", Buffer.buffer("Action=ListQueues"));
        assertEquals(WireProtocol.QUERY, r.protocol());
    }

    @Test
    void badPercentEncodingIsMalformed() {
        assertEquals(
                ErrorCode.MALFORMED_QUERY_STRING,
                fails(() -> form("Action=SendMessage&MessageBody=%zz")).code());
        assertEquals(
                ErrorCode.MALFORMED_QUERY_STRING,
                fails(() -> RequestDecoder.decode("/", "Action=ListQueues&x=%4", null, null, null))
                        .code());
    }

    @Test
    void jsonRequestKeepsTheTree() {
        String body = "{\"QueueUrl\":\"u\",\"Entries\":[{\"Id\":\"1\",\"MessageBody\":\"b\","
                + "\"MessageAttributes\":{\"c\":{\"DataType\":\"String\",\"StringValue\":\"v\"}}}]}";
        SqsRequest r = RequestDecoder.decode(
                "/", null, "application/x-amz-json-1.0", "AmazonSQS.SendMessageBatch", Buffer.buffer(body));
        assertEquals(WireProtocol.JSON, r.protocol());
        assertEquals(SqsAction.SEND_MESSAGE_BATCH, r.action());
        assertEquals(new JsonObject(body), r.params().json());
        assertEquals(
                "v",
                r.params()
                        .objectList("Entries")
                        .get(0)
                        .objectMap("MessageAttributes")
                        .get("c")
                        .requiredString("StringValue"));
    }

    @Test
    void emptyJsonBodyIsAnEmptyObject() {
        SqsRequest r = RequestDecoder.decode("/", null, "application/x-amz-json-1.0", "AmazonSQS.ListQueues", null);
        assertTrue(r.params().json().isEmpty());
        SqsRequest blank = RequestDecoder.decode("/", null, null, "AmazonSQS.ListQueues", Buffer.buffer("  \n"));
        assertTrue(blank.params().json().isEmpty());
    }

    @Test
    void malformedOrNonObjectJsonIsASerializationError() {
        for (String bad : List.of("{\"QueueUrl\":", "not json", "[1,2]", "\"s\"", "{} {}")) {
            SqsException e = fails(() -> RequestDecoder.decode(
                    "/", null, "application/x-amz-json-1.0", "AmazonSQS.SendMessage", Buffer.buffer(bad)));
            assertEquals(ErrorCode.SERIALIZATION_ERROR, e.code(), bad);
            assertTrue(e.getMessage().contains("could not be parsed"), e.getMessage());
        }
    }

    @Test
    void everyListedActionIsAccepted() {
        assertEquals(23, SqsAction.values().length);
        for (SqsAction action : SqsAction.values()) {
            assertEquals(
                    action,
                    RequestDecoder.decode("/", "Action=" + action.wireName(), null, null, null)
                            .action());
            assertEquals(
                    action,
                    RequestDecoder.decode("/", null, null, "AmazonSQS." + action.wireName(), null)
                            .action());
        }
    }
}
