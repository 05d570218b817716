package io.sluice.it;

import static io.sluice.it.SqsAssert.INVALID_PARAMETER_VALUE;
import static io.sluice.it.SqsAssert.NON_EXISTENT_QUEUE;
import static io.sluice.it.SqsAssert.PURGE_QUEUE_IN_PROGRESS;
import static io.sluice.it.SqsAssert.QUEUE_ALREADY_EXISTS;
import static io.sluice.it.SqsAssert.QUEUE_DELETED_RECENTLY;
import static io.sluice.it.SqsAssert.assertNothingReceivable;
import static io.sluice.it.SqsAssert.assertSqsError;
import static io.sluice.it.SqsAssert.awaitAttribute;
import static io.sluice.it.SqsAssert.receive;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.ListQueuesResponse;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.PurgeQueueInProgressException;
import software.amazon.awssdk.services.sqs.model.QueueDeletedRecentlyException;
import software.amazon.awssdk.services.sqs.model.QueueDoesNotExistException;
import software.amazon.awssdk.services.sqs.model.QueueNameExistsException;
import software.amazon.awssdk.services.sqs.model.SqsException;

/** Queue-level actions through the SDK v2 (JSON protocol): create, URL, list, delete, purge, tags, permissions. */
@Timeout(30)
class QueueApiTest {

    @RegisterExtension
    static final BrokerExtension broker = new BrokerExtension();

    private SqsClient sqs() {
        return broker.sqs();
    }

    // ------------------------------------------------------------------ CreateQueue / GetQueueUrl

    @Test
    void createQueueReturnsUrlAndAppliesAttributes() {
        String name = BrokerExtension.uniqueName("create");
        Map<String, String> attrs = Map.of(
                "VisibilityTimeout", "45",
                "DelaySeconds", "3",
                "MaximumMessageSize", "2048",
                "MessageRetentionPeriod", "3600",
                "ReceiveMessageWaitTimeSeconds", "4");
        String url = sqs().createQueue(r -> r.queueName(name).attributesWithStrings(attrs))
                .queueUrl();
        assertEquals(broker.expectedQueueUrl(name), url);

        Map<String, String> got = broker.attributes(url);
        attrs.forEach((k, v) -> assertEquals(v, got.get(k), "attribute " + k));
        assertEquals(BrokerExtension.expectedArn(name), got.get("QueueArn"));
    }

    @Test
    void createQueueIsIdempotentWithSameAttributes() {
        String name = BrokerExtension.uniqueName("idem");
        Map<String, String> attrs = Map.of("VisibilityTimeout", "40", "DelaySeconds", "2");
        String first = sqs().createQueue(r -> r.queueName(name).attributesWithStrings(attrs))
                .queueUrl();
        String second = sqs().createQueue(r -> r.queueName(name).attributesWithStrings(attrs))
                .queueUrl();
        assertEquals(first, second);

        String plain = BrokerExtension.uniqueName("idem-plain");
        String p1 = sqs().createQueue(r -> r.queueName(plain)).queueUrl();
        String p2 = sqs().createQueue(r -> r.queueName(plain)).queueUrl();
        assertEquals(p1, p2);
    }

    @Test
    void createQueueWithDifferentAttributesIsQueueNameExists() {
        String name = BrokerExtension.uniqueName("clash");
        sqs().createQueue(r -> r.queueName(name).attributesWithStrings(Map.of("VisibilityTimeout", "40")));
        assertSqsError(
                QueueNameExistsException.class,
                QUEUE_ALREADY_EXISTS,
                400,
                () -> sqs().createQueue(
                                r -> r.queueName(name).attributesWithStrings(Map.of("VisibilityTimeout", "41"))));
    }

    @Test
    void createQueueWithInvalidNameIsRejected() {
        assertSqsError(
                SqsException.class,
                INVALID_PARAMETER_VALUE,
                400,
                () -> sqs().createQueue(r -> r.queueName("bad name!")));
        assertSqsError(
                SqsException.class,
                INVALID_PARAMETER_VALUE,
                400,
                () -> sqs().createQueue(r -> r.queueName("x".repeat(81))));
    }

    @Test
    void getQueueUrlFindsQueueAndReportsMissingOne() {
        String name = BrokerExtension.uniqueName("url");
        String url = sqs().createQueue(r -> r.queueName(name)).queueUrl();
        assertEquals(url, sqs().getQueueUrl(r -> r.queueName(name)).queueUrl());

        assertSqsError(
                QueueDoesNotExistException.class,
                NON_EXISTENT_QUEUE,
                400,
                () -> sqs().getQueueUrl(r -> r.queueName(BrokerExtension.uniqueName("nope"))));
    }

    @Test
    void actionsOnMissingQueueAreQueueDoesNotExist() {
        String missing = broker.expectedQueueUrl(BrokerExtension.uniqueName("missing"));
        assertSqsError(
                QueueDoesNotExistException.class,
                NON_EXISTENT_QUEUE,
                400,
                () -> sqs().sendMessage(r -> r.queueUrl(missing).messageBody("x")));
        assertSqsError(
                QueueDoesNotExistException.class,
                NON_EXISTENT_QUEUE,
                400,
                () -> sqs().receiveMessage(r -> r.queueUrl(missing)));
        assertSqsError(
                QueueDoesNotExistException.class,
                NON_EXISTENT_QUEUE,
                400,
                () -> sqs().getQueueAttributes(r -> r.queueUrl(missing).attributeNamesWithStrings("All")));
        assertSqsError(
                QueueDoesNotExistException.class,
                NON_EXISTENT_QUEUE,
                400,
                () -> sqs().purgeQueue(r -> r.queueUrl(missing)));
    }

    @Test
    void queueCanBeAddressedByUrlOfAnyHostOrByBareName() {
        String name = BrokerExtension.uniqueName("addr");
        String url = sqs().createQueue(r -> r.queueName(name)).queueUrl();
        String foreignHost = "https://sqs.us-east-1.amazonaws.com/" + BrokerExtension.ACCOUNT + "/" + name;
        sqs().sendMessage(r -> r.queueUrl(foreignHost).messageBody("via foreign host"));
        sqs().sendMessage(r -> r.queueUrl(name).messageBody("via bare name"));
        awaitAttribute(broker, url, "ApproximateNumberOfMessages", "2");
    }

    // ------------------------------------------------------------------ ListQueues

    @Test
    void listQueuesFiltersByPrefix() {
        String prefix = BrokerExtension.uniqueName("lst");
        String a = sqs().createQueue(r -> r.queueName(prefix + "-a")).queueUrl();
        String b = sqs().createQueue(r -> r.queueName(prefix + "-b")).queueUrl();
        String other = broker.createQueue("other");

        List<String> urls = sqs().listQueues(r -> r.queueNamePrefix(prefix)).queueUrls();
        assertEquals(Set.of(a, b), new HashSet<>(urls));

        List<String> all = sqs().listQueues().queueUrls();
        assertTrue(all.containsAll(List.of(a, b, other)), "unfiltered list must contain every queue: " + all);
    }

    @Test
    void listQueuesPagesWithMaxResultsAndNextToken() {
        String prefix = BrokerExtension.uniqueName("page");
        Set<String> created = new HashSet<>();
        for (int i = 0; i < 5; i++) {
            int n = i;
            created.add(sqs().createQueue(r -> r.queueName(prefix + "-" + n)).queueUrl());
        }

        List<String> seen = new ArrayList<>();
        String token = null;
        int pages = 0;
        do {
            String t = token;
            ListQueuesResponse page = sqs().listQueues(
                            r -> r.queueNamePrefix(prefix).maxResults(2).nextToken(t));
            assertTrue(page.queueUrls().size() <= 2, "page larger than MaxResults: " + page.queueUrls());
            seen.addAll(page.queueUrls());
            token = page.nextToken();
            pages++;
            assertTrue(pages <= 5, "paging does not terminate");
        } while (token != null);

        assertEquals(3, pages, "5 queues at MaxResults=2 make 3 pages");
        assertEquals(5, seen.size(), "no queue may be listed twice: " + seen);
        assertEquals(created, new HashSet<>(seen));

        ListQueuesResponse exact =
                sqs().listQueues(r -> r.queueNamePrefix(prefix).maxResults(5));
        assertEquals(5, exact.queueUrls().size());
    }

    @Test
    void listQueuesRejectsMaxResultsOutOfRange() {
        assertSqsError(SqsException.class, INVALID_PARAMETER_VALUE, 400, () -> sqs().listQueues(r -> r.maxResults(0)));
        assertSqsError(
                SqsException.class, INVALID_PARAMETER_VALUE, 400, () -> sqs().listQueues(r -> r.maxResults(1001)));
    }

    // ------------------------------------------------------------------ DeleteQueue

    @Test
    void deleteQueueRemovesItAndNameCannotBeReusedWithinCooldown() {
        String name = BrokerExtension.uniqueName("del");
        String url = sqs().createQueue(r -> r.queueName(name)).queueUrl();
        sqs().sendMessage(r -> r.queueUrl(url).messageBody("doomed"));

        sqs().deleteQueue(r -> r.queueUrl(url));

        assertSqsError(
                QueueDoesNotExistException.class,
                NON_EXISTENT_QUEUE,
                400,
                () -> sqs().getQueueUrl(r -> r.queueName(name)));
        assertFalse(sqs().listQueues(r -> r.queueNamePrefix(name)).queueUrls().contains(url));
        assertSqsError(
                QueueDeletedRecentlyException.class,
                QUEUE_DELETED_RECENTLY,
                400,
                () -> sqs().createQueue(r -> r.queueName(name)));
    }

    // ------------------------------------------------------------------ PurgeQueue

    @Test
    void purgeRemovesVisibleInFlightAndDelayedMessages() {
        String url = broker.createQueue("purge");
        for (int i = 0; i < 3; i++) {
            int n = i;
            sqs().sendMessage(r -> r.queueUrl(url).messageBody("visible-" + n));
        }
        List<Message> inFlight =
                receive(sqs(), r -> r.queueUrl(url).maxNumberOfMessages(1).visibilityTimeout(2));
        assertEquals(1, inFlight.size());
        sqs().sendMessage(r -> r.queueUrl(url).messageBody("delayed").delaySeconds(2));

        awaitAttribute(broker, url, "ApproximateNumberOfMessages", "2");
        awaitAttribute(broker, url, "ApproximateNumberOfMessagesNotVisible", "1");
        awaitAttribute(broker, url, "ApproximateNumberOfMessagesDelayed", "1");

        sqs().purgeQueue(r -> r.queueUrl(url));

        awaitAttribute(broker, url, "ApproximateNumberOfMessages", "0");
        awaitAttribute(broker, url, "ApproximateNumberOfMessagesNotVisible", "0");
        awaitAttribute(broker, url, "ApproximateNumberOfMessagesDelayed", "0");
        assertNothingReceivable(sqs(), url);
        // Neither the in-flight message (2 s visibility) nor the delayed one (2 s) may come back.
        List<Message> later = sqs().receiveMessage(
                        r -> r.queueUrl(url).maxNumberOfMessages(10).waitTimeSeconds(3))
                .messages();
        assertTrue(later.isEmpty(), "purged messages came back: " + later);

        assertSqsError(
                PurgeQueueInProgressException.class,
                PURGE_QUEUE_IN_PROGRESS,
                new int[] {403, 400},
                () -> sqs().purgeQueue(r -> r.queueUrl(url)));
    }

    // ------------------------------------------------------------------ Tags

    @Test
    void tagUntagAndListQueueTags() {
        String name = BrokerExtension.uniqueName("tags");
        String url = sqs().createQueue(r -> r.queueName(name).tags(Map.of("team", "core")))
                .queueUrl();
        assertEquals(
                Map.of("team", "core"),
                sqs().listQueueTags(r -> r.queueUrl(url)).tags());

        sqs().tagQueue(r -> r.queueUrl(url).tags(Map.of("env", "test", "cost", "42")));
        assertEquals(
                Map.of("team", "core", "env", "test", "cost", "42"),
                sqs().listQueueTags(r -> r.queueUrl(url)).tags());

        sqs().tagQueue(r -> r.queueUrl(url).tags(Map.of("env", "prod")));
        assertEquals("prod", sqs().listQueueTags(r -> r.queueUrl(url)).tags().get("env"), "re-tag overwrites");

        sqs().untagQueue(r -> r.queueUrl(url).tagKeys("team", "cost"));
        assertEquals(
                Map.of("env", "prod"), sqs().listQueueTags(r -> r.queueUrl(url)).tags());

        String bare = broker.createQueue("notags");
        assertTrue(sqs().listQueueTags(r -> r.queueUrl(bare)).tags().isEmpty());
    }

    // ------------------------------------------------------------------ Permissions

    @Test
    void addAndRemovePermissionMaintainPolicyAttribute() {
        String url = broker.createQueue("perm");
        assertNull(broker.attributes(url).get("Policy"), "a new queue has no Policy");

        sqs().addPermission(r ->
                r.queueUrl(url).label("SendersL1").awsAccountIds("111122223333").actions("SendMessage"));
        sqs().addPermission(r -> r.queueUrl(url)
                .label("ReadersL2")
                .awsAccountIds("444455556666")
                .actions("ReceiveMessage", "DeleteMessage"));

        String policy = broker.attribute(url, "Policy");
        assertNotNull(policy, "Policy must appear after AddPermission");
        assertTrue(policy.contains("SendersL1") && policy.contains("ReadersL2"), policy);
        assertTrue(policy.contains("111122223333") && policy.contains("444455556666"), policy);
        assertTrue(policy.contains("SendMessage") && policy.contains("ReceiveMessage"), policy);
        assertTrue(
                policy.contains(BrokerExtension.expectedArn(BrokerExtension.nameOf(url))),
                "policy resource is the queue ARN: " + policy);
        JsonObject json = new JsonObject(policy);
        assertEquals(2, json.getJsonArray("Statement").size(), policy);

        assertSqsError(
                SqsException.class,
                INVALID_PARAMETER_VALUE,
                400,
                () -> sqs().addPermission(r -> r.queueUrl(url)
                        .label("SendersL1")
                        .awsAccountIds("111122223333")
                        .actions("SendMessage")));

        sqs().removePermission(r -> r.queueUrl(url).label("SendersL1"));
        String after = broker.attribute(url, "Policy");
        assertNotNull(after);
        assertFalse(after.contains("SendersL1"), after);
        assertTrue(after.contains("ReadersL2"), after);

        sqs().removePermission(r -> r.queueUrl(url).label("ReadersL2"));
        String none = broker.attributes(url).get("Policy");
        assertTrue(none == null || none.isBlank(), "Policy must disappear with its last permission: " + none);

        assertSqsError(
                SqsException.class,
                INVALID_PARAMETER_VALUE,
                400,
                () -> sqs().removePermission(r -> r.queueUrl(url).label("NoSuchLabel")));
    }

    @Test
    void listQueuesWithUnmatchedPrefixIsEmpty() {
        ListQueuesResponse none = sqs().listQueues(r -> r.queueNamePrefix(BrokerExtension.uniqueName("zzz")));
        assertTrue(none.queueUrls().isEmpty());
        assertNull(none.nextToken());
    }
}
