package io.sluice.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.function.IntPredicate;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

class RulesTest {

    @Test
    void md5OfBodyAndOfAttributesFollowAwsAlgorithm() {
        assertEquals("5d41402abc4b2a76b9719d911017c592", Md5.ofBody("hello"));
        // Reference value from AWS's algorithm for {a: String "x"} (also checked by the SDK in integration tests).
        assertEquals(
                "a512aac9938034acb0b3c3d965944bf1",
                Md5.ofAttributes(Map.of("a", MessageAttributeValue.ofString("String", "x"))));
        assertNull(Md5.ofAttributes(Map.of()));
        Map<String, MessageAttributeValue> ab = new LinkedHashMap<>();
        ab.put("b", MessageAttributeValue.ofBinary("Binary", "z".getBytes(StandardCharsets.UTF_8)));
        ab.put("a", MessageAttributeValue.ofString("Number", "1"));
        Map<String, MessageAttributeValue> ba = new LinkedHashMap<>();
        ba.put("a", MessageAttributeValue.ofString("Number", "1"));
        ba.put("b", MessageAttributeValue.ofBinary("Binary", "z".getBytes(StandardCharsets.UTF_8)));
        assertEquals(Md5.ofAttributes(ab), Md5.ofAttributes(ba), "order of names does not matter");
    }

    @Test
    void aStoredMessageKeepsItsBodyMd5AsTwoLongsAndReportsTheSameHexText() {
        // Leading zeros in the first and in the second half, multi-byte UTF-8 and a surrogate pair.
        Map<String, String> expected = Map.of(
                "m96786", "0000c3dee8062b4879e48b2859877660",
                "m99932", "1c723b3921babb420000b74556f2400e",
                "h\u00e9llo \uD83D\uDE00", "207dd4f0cd7a4f13b4932646cd1f8f2b",
                "hello", "5d41402abc4b2a76b9719d911017c592");
        expected.forEach((body, md5) -> {
            MessageRecord stored = new MessageRecord("id", body, Map.of(), Map.of(), 0, "sender", null, null, null);
            assertEquals(md5, stored.md5OfBody(), body);
            assertEquals(md5, stored.toStore().md5OfBody(), body);
            assertEquals(md5, MessageRecord.restore(stored.snapshot()).md5OfBody(), body);
        });
    }

    @Test
    void bodyMustUseCharactersXmlAllows() {
        MessageRules.checkBody("tab\tnew\nline\r emoji \uD83D\uDE00 \uE000");
        assertEquals(
                ErrorCode.INVALID_MESSAGE_CONTENTS,
                assertThrows(SqsException.class, () -> MessageRules.checkBody("nul\u0000"))
                        .code());
        assertEquals(
                ErrorCode.INVALID_MESSAGE_CONTENTS,
                assertThrows(SqsException.class, () -> MessageRules.checkBody("\uFFFF"))
                        .code());
        assertEquals(
                ErrorCode.INVALID_MESSAGE_CONTENTS,
                assertThrows(SqsException.class, () -> MessageRules.checkBody("lone \uD800 surrogate"))
                        .code());
        assertEquals(
                ErrorCode.MISSING_PARAMETER,
                assertThrows(SqsException.class, () -> MessageRules.checkBody(""))
                        .code());
    }

    @Test
    void sizeCountsUtf8BytesOfBodyAndAttributes() {
        Map<String, MessageAttributeValue> attrs = Map.of("nm", MessageAttributeValue.ofString("String", "é"));
        // body "é€" = 2 + 3 bytes; attribute: name 2 + type 6 + value 2
        assertEquals(15, MessageRules.size("é€", attrs));
        MessageRules.checkSize(1024, 1024);
        assertThrows(SqsException.class, () -> MessageRules.checkSize(1025, 1024));
    }

    @Test
    void attributeNamesTypesAndValuesAreChecked() {
        MessageRules.checkAttributes(Map.of(
                "ok.name_1-x",
                MessageAttributeValue.ofString("String.custom", "v"),
                "n",
                MessageAttributeValue.ofString("Number", "-12.5e3"),
                "b",
                MessageAttributeValue.ofBinary("Binary.png", new byte[] {1})));
        for (String bad : List.of("AWS.x", "amazon.y", ".lead", "trail.", "a..b", "sp ace")) {
            assertThrows(
                    SqsException.class,
                    () -> MessageRules.checkAttributes(Map.of(bad, MessageAttributeValue.ofString("String", "v"))),
                    bad);
        }
        assertThrows(
                SqsException.class,
                () -> MessageRules.checkAttributes(Map.of("t", MessageAttributeValue.ofString("Text", "v"))));
        assertThrows(
                SqsException.class,
                () -> MessageRules.checkAttributes(Map.of("t", MessageAttributeValue.ofString("Number", "abc"))));
        assertThrows(
                SqsException.class,
                () -> MessageRules.checkAttributes(Map.of("t", MessageAttributeValue.ofString("String", ""))));
        Map<String, MessageAttributeValue> eleven = new LinkedHashMap<>();
        for (int i = 0; i < 11; i++) {
            eleven.put("a" + i, MessageAttributeValue.ofString("String", "v"));
        }
        assertThrows(SqsException.class, () -> MessageRules.checkAttributes(eleven));
    }

    @Test
    void receiveAndSendNumbersHaveSqsRanges() {
        assertEquals(1, MessageRules.maxNumberOfMessages(null));
        assertThrows(SqsException.class, () -> MessageRules.maxNumberOfMessages(0));
        assertThrows(SqsException.class, () -> MessageRules.maxNumberOfMessages(11));
        assertEquals(7, MessageRules.waitTimeSeconds(null, 7));
        assertThrows(SqsException.class, () -> MessageRules.waitTimeSeconds(21, 0));
        assertThrows(SqsException.class, () -> MessageRules.visibilityTimeout(43_201, 30));
        assertEquals(900, MessageRules.delaySeconds(900, 0));
        assertThrows(SqsException.class, () -> MessageRules.delaySeconds(901, 0));
    }

    @Test
    void inFlightQuotaFailsShortPollsOnlyAndCapsTheClaim() {
        assertEquals(10, InFlightQuota.allowance(0, 120_000, 10, true));
        assertEquals(3, InFlightQuota.allowance(119_997, 120_000, 10, true));
        assertEquals(
                ErrorCode.OVER_LIMIT,
                assertThrows(SqsException.class, () -> InFlightQuota.allowance(120_000, 120_000, 1, true))
                        .code());
        assertEquals(403, ErrorCode.OVER_LIMIT.httpStatus());
        assertEquals(0, InFlightQuota.allowance(120_000, 120_000, 10, false), "long poll: no error, nothing new");
    }

    @Test
    void partitionsOnThisNodeAreAskedFirstUnlessOthersHoldAFarBiggerBacklog() {
        List<Integer> order = List.of(5, 2, 7, 0, 3);
        IntPredicate even = p -> p % 2 == 0; // the partitions this node runs
        Supplier<int[]> unread = () -> {
            throw new AssertionError("counts read where every partition is on one side");
        };
        assertEquals(
                List.of(2, 0, 5, 7, 3),
                ShortPollSampler.nearFirst(order, even, () -> new int[] {10, 0, 10, 10, 0, 10, 0, 10}),
                "this node's first, each group in the order given");
        assertEquals(
                List.of(2, 0, 5, 7, 3),
                ShortPollSampler.nearFirst(order, even, () -> new int[] {10, 0, 1, 20, 0, 20, 0, 20}),
                "twice the fullest here is not yet a backlog elsewhere");
        assertEquals(
                order,
                ShortPollSampler.nearFirst(order, even, () -> new int[] {10, 0, 1, 0, 0, 21, 0, 0}),
                "a partition elsewhere with more than twice the fullest here: the order given");
        assertEquals(
                order,
                ShortPollSampler.nearFirst(order, even, () -> new int[] {0, 0, 0, 0, 0, 1, 0, 0}),
                "nothing here to take: the order given");
        assertEquals(
                List.of(2, 0, 5, 7, 3),
                ShortPollSampler.nearFirst(order, even, () -> new int[] {1}),
                "missing counts are 0, so nothing elsewhere is fuller");
        assertSame(
                order, ShortPollSampler.nearFirst(order, p -> true, unread), "a node alone: as given, counts unread");
        assertSame(
                order, ShortPollSampler.nearFirst(order, p -> false, unread), "nothing here: as given, counts unread");
    }

    @Test
    void shortPollSampleIsHalfThePartitionsFavouringFullOnes() {
        SplittableRandom random = new SplittableRandom(42);
        int[] counts = {0, 0, 0, 0, 0, 0, 0, 1000};
        int picked = 0;
        for (int i = 0; i < 1000; i++) {
            List<Integer> sample = ShortPollSampler.sample(counts, random);
            assertTrue(sample.size() <= 4, "half the partitions at most: " + sample);
            if (sample.contains(7)) {
                picked++;
            }
        }
        assertTrue(picked > 990, "the full partition is almost always sampled: " + picked);
        // A lone message: SQS's recordings return it practically always, but not quite always.
        int[] one = {0, 0, 0, 0, 0, 0, 0, 1};
        int missed = 0;
        for (int i = 0; i < 100_000; i++) {
            List<Integer> sample = ShortPollSampler.sample(one, random);
            if (sample.isEmpty() || sample.get(0) != 7) {
                missed++;
            }
        }
        assertTrue(missed > 0, "a short poll can miss a message (false empty)");
        assertTrue(missed < 1_000, "a lone message is missed far less than once in a hundred polls: " + missed);
        // Few partitions with messages (a small queue): all of them are asked, first.
        int[] few = {0, 3, 0, 0, 1, 0, 2, 0};
        int complete = 0;
        for (int i = 0; i < 1000; i++) {
            if (ShortPollSampler.sample(few, random).subList(0, 3).containsAll(List.of(1, 4, 6))) {
                complete++;
            }
        }
        assertTrue(complete > 990, "every partition holding messages sampled: " + complete);
        // Messages everywhere: a poll sees a weighted half, so the heavy ones more often.
        int[] everywhere = {1, 1, 1, 1, 1, 1, 1, 50};
        int heavy = 0;
        int light = 0;
        for (int i = 0; i < 1000; i++) {
            List<Integer> sample = ShortPollSampler.sample(everywhere, random);
            assertTrue(sample.size() <= 4, "half the partitions at most: " + sample);
            heavy += sample.contains(7) ? 1 : 0;
            light += sample.contains(0) ? 1 : 0;
        }
        assertTrue(heavy > 950 && light < 700 && light > 100, "weighted subset: heavy " + heavy + ", light " + light);
        assertTrue(ShortPollSampler.sample(new int[] {5}, random).size() <= 1);
        assertEquals(
                List.of(0, 1, 2),
                ShortPollSampler.all(3, new SplittableRandom(1)).stream()
                        .sorted()
                        .toList());
    }

    @Test
    void attributeFilterHonoursAllPrefixAndNames() {
        Map<String, MessageAttributeValue> attrs = Map.of(
                "trace.id", MessageAttributeValue.ofString("String", "1"),
                "trace.span", MessageAttributeValue.ofString("String", "2"),
                "other", MessageAttributeValue.ofString("String", "3"));
        assertEquals(3, AttributeNameFilter.select(attrs, List.of("All")).size());
        assertEquals(3, AttributeNameFilter.select(attrs, List.of(".*")).size());
        assertEquals(2, AttributeNameFilter.select(attrs, List.of("trace.*")).size());
        assertEquals(1, AttributeNameFilter.select(attrs, List.of("other")).size());
        assertTrue(AttributeNameFilter.select(attrs, List.of()).isEmpty());
    }

    @Test
    void batchRules() {
        assertEquals(
                ErrorCode.EMPTY_BATCH_REQUEST,
                assertThrows(SqsException.class, () -> BatchRules.checkIds(List.of(), "E"))
                        .code());
        assertEquals(
                ErrorCode.TOO_MANY_ENTRIES_IN_BATCH_REQUEST,
                assertThrows(
                                SqsException.class,
                                () -> BatchRules.checkIds(
                                        List.of("1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11"), "E"))
                        .code());
        assertEquals(
                ErrorCode.BATCH_ENTRY_IDS_NOT_DISTINCT,
                assertThrows(SqsException.class, () -> BatchRules.checkIds(List.of("a", "a"), "E"))
                        .code());
        assertEquals(
                ErrorCode.INVALID_BATCH_ENTRY_ID,
                assertThrows(SqsException.class, () -> BatchRules.checkIds(List.of("a b"), "E"))
                        .code());
        assertEquals(
                ErrorCode.BATCH_REQUEST_TOO_LONG,
                assertThrows(SqsException.class, () -> BatchRules.checkTotalSize(1_048_577))
                        .code());
    }

    @Test
    void receiptHandlesRoundTripAndRefuseTampering() {
        ReceiptHandle.Codec codec = new ReceiptHandle.Codec(new byte[32]);
        ReceiptHandle h = new ReceiptHandle("orders", 3, "id-1", 123456789L);
        String text = codec.encode(h);
        assertEquals(h, codec.decode(text));
        char[] chars = text.toCharArray();
        chars[5] = chars[5] == 'A' ? 'B' : 'A';
        String tampered = new String(chars);
        assertEquals(
                ErrorCode.RECEIPT_HANDLE_IS_INVALID,
                assertThrows(SqsException.class, () -> codec.decode(tampered)).code());
        assertThrows(SqsException.class, () -> codec.decode("not a handle!"));
        assertThrows(SqsException.class, () -> codec.decode(""));
        ReceiptHandle.Codec other = new ReceiptHandle.Codec(new byte[] {1, 2, 3});
        assertThrows(SqsException.class, () -> other.decode(text), "signed with another key");
        assertFalse(text.contains("orders"), "opaque to clients");
    }

    @Test
    void queueAttributesAreValidatedAndReportedWithDefaults() {
        Map<String, String> ok =
                QueueAttributes.validate(Map.of("VisibilityTimeout", "45", "DelaySeconds", "0"), false, true);
        assertEquals("45", ok.get("VisibilityTimeout"));
        assertEquals(
                ErrorCode.INVALID_ATTRIBUTE_VALUE,
                assertThrows(
                                SqsException.class,
                                () -> QueueAttributes.validate(Map.of("MessageRetentionPeriod", "59"), false, true))
                        .code());
        assertEquals(
                ErrorCode.INVALID_ATTRIBUTE_VALUE,
                assertThrows(
                                SqsException.class,
                                () -> QueueAttributes.validate(Map.of("MaximumMessageSize", "1048577"), false, true))
                        .code());
        assertEquals(
                ErrorCode.INVALID_ATTRIBUTE_NAME,
                assertThrows(
                                SqsException.class,
                                () -> QueueAttributes.validate(
                                        Map.of("ContentBasedDeduplication", "true"), false, true))
                        .code());
        assertEquals(
                ErrorCode.INVALID_ATTRIBUTE_NAME,
                assertThrows(SqsException.class, () -> QueueAttributes.validate(Map.of("QueueArn", "x"), false, true))
                        .code());
        QueueMeta meta = new QueueMeta("q", false, 4, 1_000_000, 2_000_000, ok, Map.of(), 0);
        Map<String, String> all = QueueAttributes.report(meta, List.of("All"), "arn:q", new MessageCounts(1, 2, 3));
        assertEquals("45", all.get("VisibilityTimeout"));
        assertEquals("345600", all.get("MessageRetentionPeriod"));
        assertEquals("1048576", all.get("MaximumMessageSize"));
        assertEquals("3", all.get("ApproximateNumberOfMessagesDelayed"));
        assertEquals("1000", all.get("CreatedTimestamp"));
        assertFalse(all.containsKey("Policy"));
        assertFalse(all.containsKey("RedrivePolicy"));
        assertEquals(45, meta.visibilityTimeoutSeconds());
        assertEquals(345_600_000L, meta.retentionMillis());
        QueueMeta withRedrive = meta.withRedrivePolicy(new RedrivePolicy("arn:aws:sqs:r:1:dlq", 5), 3_000_000);
        assertEquals(
                "{\"deadLetterTargetArn\":\"arn:aws:sqs:r:1:dlq\",\"maxReceiveCount\":5}",
                QueueAttributes.report(withRedrive, List.of("RedrivePolicy"), "arn:q", MessageCounts.NONE)
                        .get("RedrivePolicy"));
        assertEquals(3_000, withRedrive.lastModifiedMillis() / 1000);
        assertEquals(
                45,
                withRedrive
                        .withAttributes(Map.of("DelaySeconds", "7"), 4_000_000)
                        .visibilityTimeoutSeconds());
        assertEquals(
                7,
                withRedrive
                        .withAttributes(Map.of("DelaySeconds", "7"), 4_000_000)
                        .delaySeconds());
        assertEquals(
                withRedrive.redrivePolicy(),
                withRedrive.withAttributes(Map.of(), 0).redrivePolicy());
        assertEquals(
                ErrorCode.INVALID_ATTRIBUTE_NAME,
                assertThrows(
                                SqsException.class,
                                () -> QueueAttributes.report(meta, List.of("Bogus"), "arn:q", MessageCounts.NONE))
                        .code());
    }

    @Test
    void registryReservesDeletedNamesAndResolvesCreateRaces() {
        FakeClock clock = new FakeClock();
        InMemoryQueueRegistry registry = new InMemoryQueueRegistry(clock);
        QueueMeta q = new QueueMeta("q", false, 2, 0, 0, Map.of("DelaySeconds", "5"), Map.of(), 0);
        join(registry.create(q));
        assertEquals(
                q, join(registry.create(new QueueMeta("q", false, 2, 9, 9, Map.of("DelaySeconds", "5"), Map.of(), 0))));
        assertEquals(
                ErrorCode.QUEUE_ALREADY_EXISTS,
                assertThrows(
                                SqsException.class,
                                () -> join(registry.create(
                                        new QueueMeta("q", false, 2, 0, 0, Map.of("DelaySeconds", "6"), Map.of(), 0))))
                        .code());
        RedrivePolicy redrive = new RedrivePolicy("arn:aws:sqs:r:1:dlq", 3);
        QueueMeta src = new QueueMeta("src", false, 2, 0, 0, Map.of(), Map.of(), 0, redrive);
        join(registry.create(src));
        assertEquals(
                src,
                join(registry.create(new QueueMeta(
                        "src", false, 2, 9, 9, Map.of(), Map.of(), 0, new RedrivePolicy("arn:aws:sqs:r:1:dlq", 3)))));
        assertEquals(
                ErrorCode.QUEUE_ALREADY_EXISTS,
                assertThrows(
                                SqsException.class,
                                () -> join(registry.create(new QueueMeta(
                                        "src",
                                        false,
                                        2,
                                        0,
                                        0,
                                        Map.of(),
                                        Map.of(),
                                        0,
                                        new RedrivePolicy("arn:aws:sqs:r:1:dlq", 4)))))
                        .code());
        join(registry.delete("q"));
        assertEquals(
                ErrorCode.QUEUE_DELETED_RECENTLY,
                assertThrows(SqsException.class, () -> join(registry.create(q))).code());
        clock.advanceSeconds(60);
        join(registry.create(q));
        assertEquals(
                ErrorCode.QUEUE_DOES_NOT_EXIST,
                assertThrows(SqsException.class, () -> join(registry.update("nope", m -> m)))
                        .code());
    }

    private static <T> T join(CompletionStage<T> stage) {
        try {
            return stage.toCompletableFuture().join();
        } catch (CompletionException e) {
            throw (RuntimeException) e.getCause();
        }
    }
}
