package io.sluice.it;

import static io.sluice.it.SqsAssert.assertNotBlank;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Hand-made AWS JSON 1.0 requests (answer shapes, error shapes) and bad input on both protocols:
 * malformed bodies, unknown targets, wrong types, oversized requests. Every answer must be an SQS
 * error in the request's protocol: never a 500, never a hang.
 */
@Timeout(60)
class JsonProtocolAndBadInputTest {

    private static final int EIGHT_MIB = 8 * 1024 * 1024;

    @RegisterExtension
    static final BrokerExtension broker = new BrokerExtension();

    private static RawHttp http;

    @BeforeAll
    static void client() {
        http = new RawHttp(broker.baseUrl());
    }

    private static JsonObject jsonBody(HttpResponse<String> r) {
        try {
            return new JsonObject(r.body());
        } catch (DecodeException e) {
            throw new AssertionError("answer is not a JSON object: " + r.body(), e);
        }
    }

    /** Asserts a JSON-protocol error: status, content type, a __type, and returns the body. */
    private static JsonObject jsonError(HttpResponse<String> r, int status) {
        assertEquals(status, r.statusCode(), () -> "HTTP status; body: " + r.body());
        String ct = r.headers().firstValue("Content-Type").orElse("");
        assertTrue(
                ct.startsWith(RawHttp.JSON_CONTENT_TYPE),
                "JSON errors are " + RawHttp.JSON_CONTENT_TYPE + ", got " + ct);
        JsonObject body = jsonBody(r);
        assertNotBlank(body.getString("__type"), "__type");
        return body;
    }

    private static String queryErrorCode(HttpResponse<String> r) {
        String h = r.headers().firstValue("x-amzn-query-error").orElse(null);
        assertNotBlank(h, "x-amzn-query-error header");
        return h.substring(0, h.indexOf(';') < 0 ? h.length() : h.indexOf(';'));
    }

    private static void assertClientError(HttpResponse<String> r) {
        assertTrue(
                r.statusCode() >= 400 && r.statusCode() < 500,
                "expected a 4xx SQS error, got " + r.statusCode() + ": " + r.body());
    }

    // ------------------------------------------------------------------ JSON shapes

    @Test
    void jsonSuccessShape() {
        String name = BrokerExtension.uniqueName("jcreate");
        HttpResponse<String> r = http.json(
                "AmazonSQS.CreateQueue", new JsonObject().put("QueueName", name).encode());
        assertEquals(200, r.statusCode(), r.body());
        assertTrue(r.headers().firstValue("Content-Type").orElse("").startsWith(RawHttp.JSON_CONTENT_TYPE));
        assertNotBlank(r.headers().firstValue("x-amzn-RequestId").orElse(null), "x-amzn-RequestId header");
        assertEquals(broker.expectedQueueUrl(name), jsonBody(r).getString("QueueUrl"));

        HttpResponse<String> list = http.json(
                "AmazonSQS.ListQueues",
                new JsonObject().put("QueueNamePrefix", name).encode());
        assertEquals(200, list.statusCode(), list.body());
        assertEquals(
                List.of(broker.expectedQueueUrl(name)),
                jsonBody(list).getJsonArray("QueueUrls").getList());
    }

    @Test
    void jsonErrorShapeForMissingQueue() {
        HttpResponse<String> r = http.json(
                "AmazonSQS.GetQueueUrl",
                new JsonObject()
                        .put("QueueName", BrokerExtension.uniqueName("jmissing"))
                        .encode());
        JsonObject body = jsonError(r, 400);
        assertEquals("com.amazonaws.sqs#QueueDoesNotExist", body.getString("__type"));
        assertEquals("The specified queue does not exist.", body.getString("message"));
        assertEquals(
                "AWS.SimpleQueueService.NonExistentQueue;Sender",
                r.headers().firstValue("x-amzn-query-error").orElse(null));
        assertNotBlank(r.headers().firstValue("x-amzn-RequestId").orElse(null), "x-amzn-RequestId header");
    }

    @Test
    void malformedJsonIs400WithJsonError() {
        jsonError(http.json("AmazonSQS.CreateQueue", "{\"QueueName\": "), 400);
        jsonError(http.json("AmazonSQS.CreateQueue", "not json at all"), 400);
        jsonError(http.json("AmazonSQS.CreateQueue", "[1,2,3]"), 400);
        jsonError(http.json("AmazonSQS.ListQueues", "{\"QueueNamePrefix\": \"\\uZZZZ\"}"), 400);
    }

    @Test
    void emptyJsonBodyIsMissingParameter() {
        HttpResponse<String> r = http.json("AmazonSQS.CreateQueue", "");
        jsonError(r, 400);
        HttpResponse<String> r2 = http.json("AmazonSQS.CreateQueue", "{}");
        jsonError(r2, 400);
        assertEquals("MissingParameter", queryErrorCode(r2));
    }

    @Test
    void unknownTargetIs400() {
        HttpResponse<String> r = http.json("AmazonSQS.Frobnicate", "{}");
        jsonError(r, 400);
        HttpResponse<String> other = http.json("DynamoDB_20120810.ListTables", "{}");
        assertEquals(400, other.statusCode(), other.body());
        HttpResponse<String> noAction = http.json("AmazonSQS.", "{}");
        assertEquals(400, noAction.statusCode(), noAction.body());
    }

    @Test
    void wrongJsonTypesAre400() {
        String url = broker.createQueue("jtypes");
        jsonError(
                http.json(
                        "AmazonSQS.ReceiveMessage",
                        new JsonObject()
                                .put("QueueUrl", url)
                                .put("MaxNumberOfMessages", "abc")
                                .encode()),
                400);
        jsonError(
                http.json(
                        "AmazonSQS.ReceiveMessage",
                        new JsonObject()
                                .put("QueueUrl", url)
                                .put("WaitTimeSeconds", new JsonObject())
                                .encode()),
                400);
        jsonError(
                http.json(
                        "AmazonSQS.SendMessage",
                        new JsonObject()
                                .put("QueueUrl", 12345)
                                .put("MessageBody", "x")
                                .encode()),
                400);
        jsonError(
                http.json(
                        "AmazonSQS.SendMessageBatch",
                        new JsonObject()
                                .put("QueueUrl", url)
                                .put("Entries", "not a list")
                                .encode()),
                400);
        jsonError(
                http.json(
                        "AmazonSQS.SendMessage",
                        new JsonObject()
                                .put("QueueUrl", url)
                                .put("MessageBody", "x")
                                .put("MessageAttributes", "not a map")
                                .encode()),
                400);
        jsonError(
                http.json(
                        "AmazonSQS.ReceiveMessage",
                        new JsonObject()
                                .put("QueueUrl", url)
                                .put("MaxNumberOfMessages", 1e30)
                                .encode()),
                400);
    }

    @Test
    void missingQueueUrlIsMissingParameter() {
        HttpResponse<String> r = http.json(
                "AmazonSQS.SendMessage",
                new JsonObject().put("MessageBody", "x").encode());
        jsonError(r, 400);
        assertEquals("MissingParameter", queryErrorCode(r));
    }

    // ------------------------------------------------------------------ oversized requests

    /**
     * A body read in many pieces is read whole: sent chunked in 1 KiB pieces, and with a
     * Content-Length (the server still reads it in pieces), over both protocols.
     */
    @Test
    void aBodyInManyPiecesIsReadWhole() {
        String url = broker.createQueue("pieces");
        String body = "abcdefghij%+& é\u4e2d".repeat(10_000);
        String query =
                RawHttp.form("Action", "SendMessage", "Version", "2012-11-05", "QueueUrl", url, "MessageBody", body);
        String json =
                new JsonObject().put("QueueUrl", url).put("MessageBody", body).encode();
        for (boolean chunked : new boolean[] {true, false}) {
            HttpResponse<String> q = http.send(HttpRequest.newBuilder(URI.create(broker.baseUrl() + "/"))
                    .header("Content-Type", "application/x-www-form-urlencoded")
                    .POST(inPieces(query, chunked))
                    .build());
            assertEquals(200, q.statusCode(), q.body());
            HttpResponse<String> j = http.send(HttpRequest.newBuilder(URI.create(broker.baseUrl() + "/"))
                    .header("Content-Type", RawHttp.JSON_CONTENT_TYPE)
                    .header("X-Amz-Target", "AmazonSQS.SendMessage")
                    .POST(inPieces(json, chunked))
                    .build());
            assertEquals(200, j.statusCode(), j.body());
        }
        // Long polls cover every partition; a short poll samples some and may miss a message.
        List<String> received = new ArrayList<>();
        await().atMost(Duration.ofSeconds(20)).until(() -> {
            broker.sqs()
                    .receiveMessage(r -> r.queueUrl(url).maxNumberOfMessages(10).waitTimeSeconds(1))
                    .messages()
                    .forEach(m -> received.add(m.body()));
            return received.size() >= 4;
        });
        assertEquals(List.of(body, body, body, body), received);
    }

    private static HttpRequest.BodyPublisher inPieces(String text, boolean chunked) {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        List<byte[]> pieces = new ArrayList<>();
        for (int at = 0; at < bytes.length; at += 1024) {
            pieces.add(Arrays.copyOfRange(bytes, at, Math.min(bytes.length, at + 1024)));
        }
        HttpRequest.BodyPublisher publisher = HttpRequest.BodyPublishers.ofByteArrays(pieces);
        return chunked ? publisher : HttpRequest.BodyPublishers.fromPublisher(publisher, bytes.length);
    }

    @Test
    void oversizedJsonRequestWithContentLengthIsRejected() throws Exception {
        int status = RawHttp.postOversized(
                broker.port(),
                List.of("Content-Type: " + RawHttp.JSON_CONTENT_TYPE, "X-Amz-Target: AmazonSQS.SendMessage"),
                "{\"QueueUrl\":\"" + broker.createQueue("big") + "\",\"MessageBody\":\"",
                EIGHT_MIB,
                false,
                Duration.ofSeconds(15));
        assertTrue(status >= 400 && status < 500, "8 MiB JSON request answered " + status);
        stillServing();
    }

    @Test
    void oversizedChunkedJsonRequestIsRejected() throws Exception {
        int status = RawHttp.postOversized(
                broker.port(),
                List.of("Content-Type: " + RawHttp.JSON_CONTENT_TYPE, "X-Amz-Target: AmazonSQS.SendMessage"),
                "{\"QueueUrl\":\"" + broker.createQueue("bigchunk") + "\",\"MessageBody\":\"",
                EIGHT_MIB,
                true,
                Duration.ofSeconds(15));
        assertTrue(status >= 400 && status < 500, "8 MiB chunked JSON request answered " + status);
        stillServing();
    }

    @Test
    void oversizedQueryRequestIsRejected() throws Exception {
        String url = broker.createQueue("bigquery");
        String prefix =
                RawHttp.form("Action", "SendMessage", "Version", "2012-11-05", "QueueUrl", url) + "&MessageBody=";
        int status = RawHttp.postOversized(
                broker.port(),
                List.of("Content-Type: application/x-www-form-urlencoded"),
                prefix,
                EIGHT_MIB,
                false,
                Duration.ofSeconds(15));
        assertTrue(status >= 400 && status < 500, "8 MiB Query request answered " + status);

        int chunked = RawHttp.postOversized(
                broker.port(),
                List.of("Content-Type: application/x-www-form-urlencoded"),
                prefix,
                EIGHT_MIB,
                true,
                Duration.ofSeconds(15));
        assertTrue(chunked >= 400 && chunked < 500, "8 MiB chunked Query request answered " + chunked);
        stillServing();
        assertEquals("0", broker.attribute(url, "ApproximateNumberOfMessages"));
    }

    @Test
    void requestWithNeitherProtocolIsClientError() {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(broker.baseUrl() + "/"))
                .timeout(Duration.ofSeconds(10))
                .header("Content-Type", "text/plain")
                .POST(HttpRequest.BodyPublishers.ofString("hello"))
                .build());
        assertClientError(r);
    }

    private void stillServing() {
        try {
            broker.sqs().listQueues();
        } catch (RuntimeException e) {
            fail("node stopped serving after an oversized request: " + e);
        }
    }
}
