package io.sluice.it;

import static io.sluice.it.SqsAssert.BATCH_REQUEST_TOO_LONG;
import static io.sluice.it.SqsAssert.EMPTY_BATCH_REQUEST;
import static io.sluice.it.SqsAssert.IDS_NOT_DISTINCT;
import static io.sluice.it.SqsAssert.INVALID_BATCH_ENTRY_ID;
import static io.sluice.it.SqsAssert.TOO_MANY_ENTRIES;
import static io.sluice.it.SqsAssert.assertNothingReceivable;
import static io.sluice.it.SqsAssert.assertSqsError;
import static io.sluice.it.SqsAssert.awaitAttribute;
import static io.sluice.it.SqsAssert.md5OfBody;
import static io.sluice.it.SqsAssert.receive;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.BatchEntryIdsNotDistinctException;
import software.amazon.awssdk.services.sqs.model.BatchRequestTooLongException;
import software.amazon.awssdk.services.sqs.model.BatchResultErrorEntry;
import software.amazon.awssdk.services.sqs.model.ChangeMessageVisibilityBatchRequestEntry;
import software.amazon.awssdk.services.sqs.model.ChangeMessageVisibilityBatchResponse;
import software.amazon.awssdk.services.sqs.model.DeleteMessageBatchRequestEntry;
import software.amazon.awssdk.services.sqs.model.DeleteMessageBatchResponse;
import software.amazon.awssdk.services.sqs.model.EmptyBatchRequestException;
import software.amazon.awssdk.services.sqs.model.InvalidBatchEntryIdException;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchRequestEntry;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchResponse;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchResultEntry;
import software.amazon.awssdk.services.sqs.model.TooManyEntriesInBatchRequestException;

/** SendMessageBatch, DeleteMessageBatch, ChangeMessageVisibilityBatch: per-entry results and batch-level errors. */
@Timeout(30)
class BatchApiTest {

    @RegisterExtension
    static final BrokerExtension broker = new BrokerExtension();

    private SqsClient sqs() {
        return broker.sqs();
    }

    private static SendMessageBatchRequestEntry entry(String id, String body) {
        return SendMessageBatchRequestEntry.builder().id(id).messageBody(body).build();
    }

    private static Map<String, BatchResultErrorEntry> failedById(List<BatchResultErrorEntry> failed) {
        return failed.stream().collect(Collectors.toMap(BatchResultErrorEntry::id, Function.identity()));
    }

    private List<Message> sendAndReceive(String url, int n) {
        List<SendMessageBatchRequestEntry> entries =
                IntStream.range(0, n).mapToObj(i -> entry("e" + i, "body-" + i)).collect(Collectors.toList());
        SendMessageBatchResponse sent =
                sqs().sendMessageBatch(r -> r.queueUrl(url).entries(entries));
        assertEquals(n, sent.successful().size(), "failed: " + sent.failed());
        List<Message> got =
                receive(sqs(), r -> r.queueUrl(url).maxNumberOfMessages(10).visibilityTimeout(30));
        assertEquals(n, got.size());
        return got;
    }

    // ------------------------------------------------------------------ SendMessageBatch

    @Test
    void sendMessageBatchReportsPerEntrySuccessAndFailure() {
        String url = broker.createQueue("sendbatch");
        SendMessageBatchResponse resp = sqs().sendMessageBatch(r -> r.queueUrl(url)
                .entries(
                        entry("ok-1", "first"),
                        entry("ok_2", "second"),
                        entry("bad-chars", "nul\u0000"),
                        SendMessageBatchRequestEntry.builder()
                                .id("bad-delay")
                                .messageBody("x")
                                .delaySeconds(901)
                                .build(),
                        entry("ok-3", "third ☃")));

        Map<String, SendMessageBatchResultEntry> ok = resp.successful().stream()
                .collect(Collectors.toMap(SendMessageBatchResultEntry::id, Function.identity()));
        assertEquals(Set.of("ok-1", "ok_2", "ok-3"), ok.keySet(), "failed: " + resp.failed());
        assertEquals(md5OfBody("first"), ok.get("ok-1").md5OfMessageBody());
        assertEquals(md5OfBody("third ☃"), ok.get("ok-3").md5OfMessageBody());
        ok.values()
                .forEach(e -> assertFalse(e.messageId() == null || e.messageId().isBlank()));
        assertEquals(
                3,
                ok.values().stream()
                        .map(SendMessageBatchResultEntry::messageId)
                        .distinct()
                        .count());

        Map<String, BatchResultErrorEntry> failed = failedById(resp.failed());
        assertEquals(Set.of("bad-chars", "bad-delay"), failed.keySet());
        assertEquals("InvalidMessageContents", failed.get("bad-chars").code());
        assertEquals("InvalidParameterValue", failed.get("bad-delay").code());
        failed.values().forEach(f -> {
            assertTrue(f.senderFault(), "sender fault for " + f.id());
            assertFalse(f.message() == null || f.message().isBlank(), "message for " + f.id());
        });

        awaitAttribute(broker, url, "ApproximateNumberOfMessages", "3");
        Set<String> bodies = receive(sqs(), url).stream().map(Message::body).collect(Collectors.toSet());
        assertEquals(Set.of("first", "second", "third ☃"), bodies);
    }

    @Test
    void sendMessageBatchEntryTooLargeFailsAlone() {
        String url = broker.createQueue("bigentry", Map.of("MaximumMessageSize", "1024"));
        SendMessageBatchResponse resp = sqs().sendMessageBatch(r ->
                r.queueUrl(url).entries(entry("small", "x"), entry("large", "y".repeat(1025))));
        assertEquals(
                List.of("small"),
                resp.successful().stream().map(SendMessageBatchResultEntry::id).toList());
        assertEquals(
                List.of("large"),
                resp.failed().stream().map(BatchResultErrorEntry::id).toList());
        assertTrue(resp.failed().get(0).senderFault());
    }

    @Test
    void sendMessageBatchErrors() {
        String url = broker.createQueue("senderr");
        assertSqsError(
                EmptyBatchRequestException.class,
                EMPTY_BATCH_REQUEST,
                400,
                () -> sqs().sendMessageBatch(r -> r.queueUrl(url).entries(List.of())));

        List<SendMessageBatchRequestEntry> eleven =
                IntStream.range(0, 11).mapToObj(i -> entry("id" + i, "b")).collect(Collectors.toList());
        assertSqsError(
                TooManyEntriesInBatchRequestException.class,
                TOO_MANY_ENTRIES,
                400,
                () -> sqs().sendMessageBatch(r -> r.queueUrl(url).entries(eleven)));

        assertSqsError(
                BatchEntryIdsNotDistinctException.class,
                IDS_NOT_DISTINCT,
                400,
                () -> sqs().sendMessageBatch(r -> r.queueUrl(url).entries(entry("same", "a"), entry("same", "b"))));

        for (String badId : List.of("has space", "dot.id", "x".repeat(81), "")) {
            try {
                assertSqsError(
                        InvalidBatchEntryIdException.class,
                        INVALID_BATCH_ENTRY_ID,
                        400,
                        () -> sqs().sendMessageBatch(r -> r.queueUrl(url).entries(entry(badId, "a"))));
            } catch (AssertionError e) {
                throw new AssertionError("entry id '" + badId + "': " + e.getMessage(), e);
            }
        }
        // 80 characters of the allowed alphabet is fine.
        sqs().sendMessageBatch(r -> r.queueUrl(url).entries(entry("aZ0_-".repeat(16), "a")));

        // Each entry fits the 1 MiB message limit, together they do not.
        String big = "q".repeat(600 * 1024);
        assertSqsError(
                BatchRequestTooLongException.class,
                BATCH_REQUEST_TOO_LONG,
                400,
                () -> sqs().sendMessageBatch(r -> r.queueUrl(url).entries(entry("a", big), entry("b", big))));

        awaitAttribute(broker, url, "ApproximateNumberOfMessages", "1");
    }

    @Test
    void sendMessageBatchUpToTheTotalLimitIsAccepted() {
        String url = broker.createQueue("fullbatch");
        String body = "f".repeat(104_000);
        List<SendMessageBatchRequestEntry> ten =
                IntStream.range(0, 10).mapToObj(i -> entry("e" + i, body)).collect(Collectors.toList());
        SendMessageBatchResponse resp =
                sqs().sendMessageBatch(r -> r.queueUrl(url).entries(ten));
        assertEquals(
                10,
                resp.successful().size(),
                "1 040 000 bytes in 10 entries is within 1 MiB; failed: " + resp.failed());
        awaitAttribute(broker, url, "ApproximateNumberOfMessages", "10");
    }

    // ------------------------------------------------------------------ DeleteMessageBatch

    @Test
    void deleteMessageBatchReportsPerEntrySuccessAndFailure() {
        String url = broker.createQueue("delbatch");
        List<Message> got = sendAndReceive(url, 3);
        List<DeleteMessageBatchRequestEntry> entries = new ArrayList<>();
        for (int i = 0; i < got.size(); i++) {
            entries.add(DeleteMessageBatchRequestEntry.builder()
                    .id("d" + i)
                    .receiptHandle(got.get(i).receiptHandle())
                    .build());
        }
        entries.add(DeleteMessageBatchRequestEntry.builder()
                .id("garbage")
                .receiptHandle("not-a-handle")
                .build());

        DeleteMessageBatchResponse resp =
                sqs().deleteMessageBatch(r -> r.queueUrl(url).entries(entries));
        assertEquals(
                Set.of("d0", "d1", "d2"),
                resp.successful().stream().map(e -> e.id()).collect(Collectors.toSet()),
                "failed: " + resp.failed());
        Map<String, BatchResultErrorEntry> failed = failedById(resp.failed());
        assertEquals(Set.of("garbage"), failed.keySet());
        assertEquals("ReceiptHandleIsInvalid", failed.get("garbage").code());
        assertTrue(failed.get("garbage").senderFault());

        awaitAttribute(broker, url, "ApproximateNumberOfMessagesNotVisible", "0");
        awaitAttribute(broker, url, "ApproximateNumberOfMessages", "0");
    }

    @Test
    void deleteMessageBatchErrors() {
        String url = broker.createQueue("delerr");
        assertSqsError(
                EmptyBatchRequestException.class,
                EMPTY_BATCH_REQUEST,
                400,
                () -> sqs().deleteMessageBatch(r -> r.queueUrl(url).entries(List.of())));
        List<DeleteMessageBatchRequestEntry> eleven = IntStream.range(0, 11)
                .mapToObj(i -> DeleteMessageBatchRequestEntry.builder()
                        .id("i" + i)
                        .receiptHandle("h" + i)
                        .build())
                .collect(Collectors.toList());
        assertSqsError(
                TooManyEntriesInBatchRequestException.class,
                TOO_MANY_ENTRIES,
                400,
                () -> sqs().deleteMessageBatch(r -> r.queueUrl(url).entries(eleven)));
        assertSqsError(
                BatchEntryIdsNotDistinctException.class,
                IDS_NOT_DISTINCT,
                400,
                () -> sqs().deleteMessageBatch(r -> r.queueUrl(url)
                        .entries(
                                e -> e.id("dup").receiptHandle("a"),
                                e -> e.id("dup").receiptHandle("b"))));
        assertSqsError(
                InvalidBatchEntryIdException.class,
                INVALID_BATCH_ENTRY_ID,
                400,
                () -> sqs().deleteMessageBatch(
                                r -> r.queueUrl(url).entries(e -> e.id("bad id").receiptHandle("a"))));
    }

    // ------------------------------------------------------------------ ChangeMessageVisibilityBatch

    @Test
    void changeMessageVisibilityBatchReportsPerEntrySuccessAndFailure() {
        String url = broker.createQueue("cmvbatch");
        List<Message> got = sendAndReceive(url, 3);
        assertNothingReceivable(sqs(), url);

        List<ChangeMessageVisibilityBatchRequestEntry> entries = List.of(
                ChangeMessageVisibilityBatchRequestEntry.builder()
                        .id("release0")
                        .receiptHandle(got.get(0).receiptHandle())
                        .visibilityTimeout(0)
                        .build(),
                ChangeMessageVisibilityBatchRequestEntry.builder()
                        .id("release1")
                        .receiptHandle(got.get(1).receiptHandle())
                        .visibilityTimeout(0)
                        .build(),
                ChangeMessageVisibilityBatchRequestEntry.builder()
                        .id("toolong")
                        .receiptHandle(got.get(2).receiptHandle())
                        .visibilityTimeout(43201)
                        .build(),
                ChangeMessageVisibilityBatchRequestEntry.builder()
                        .id("garbage")
                        .receiptHandle("not-a-handle")
                        .visibilityTimeout(0)
                        .build());
        ChangeMessageVisibilityBatchResponse resp =
                sqs().changeMessageVisibilityBatch(r -> r.queueUrl(url).entries(entries));

        assertEquals(
                Set.of("release0", "release1"),
                resp.successful().stream().map(e -> e.id()).collect(Collectors.toSet()),
                "failed: " + resp.failed());
        Map<String, BatchResultErrorEntry> failed = failedById(resp.failed());
        assertEquals(Set.of("toolong", "garbage"), failed.keySet());
        assertEquals("InvalidParameterValue", failed.get("toolong").code());
        assertEquals("ReceiptHandleIsInvalid", failed.get("garbage").code());
        failed.values().forEach(f -> assertTrue(f.senderFault(), f.id()));

        Set<String> visibleAgain =
                receive(sqs(), url).stream().map(Message::messageId).collect(Collectors.toSet());
        assertEquals(
                Set.of(got.get(0).messageId(), got.get(1).messageId()),
                visibleAgain,
                "the two released messages are visible at once; the third stays in flight");
    }

    @Test
    void changeMessageVisibilityBatchErrors() {
        String url = broker.createQueue("cmverr");
        assertSqsError(
                EmptyBatchRequestException.class,
                EMPTY_BATCH_REQUEST,
                400,
                () -> sqs().changeMessageVisibilityBatch(r -> r.queueUrl(url).entries(List.of())));
        List<ChangeMessageVisibilityBatchRequestEntry> eleven = IntStream.range(0, 11)
                .mapToObj(i -> ChangeMessageVisibilityBatchRequestEntry.builder()
                        .id("i" + i)
                        .receiptHandle("h")
                        .visibilityTimeout(1)
                        .build())
                .collect(Collectors.toList());
        assertSqsError(
                TooManyEntriesInBatchRequestException.class,
                TOO_MANY_ENTRIES,
                400,
                () -> sqs().changeMessageVisibilityBatch(r -> r.queueUrl(url).entries(eleven)));
        assertSqsError(
                BatchEntryIdsNotDistinctException.class,
                IDS_NOT_DISTINCT,
                400,
                () -> sqs().changeMessageVisibilityBatch(r -> r.queueUrl(url)
                        .entries(
                                e -> e.id("dup").receiptHandle("a").visibilityTimeout(1),
                                e -> e.id("dup").receiptHandle("b").visibilityTimeout(1))));
        assertSqsError(
                InvalidBatchEntryIdException.class,
                INVALID_BATCH_ENTRY_ID,
                400,
                () -> sqs().changeMessageVisibilityBatch(r -> r.queueUrl(url)
                        .entries(e -> e.id("bad/id").receiptHandle("a").visibilityTimeout(1))));
    }
}
