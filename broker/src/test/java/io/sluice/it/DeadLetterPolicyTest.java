package io.sluice.it;

import static io.sluice.it.FifoSupport.arnOf;
import static io.sluice.it.FifoSupport.assertErrorCode;
import static io.sluice.it.FifoSupport.createFifoQueue;
import static io.sluice.it.FifoSupport.redriveAllowByQueue;
import static io.sluice.it.FifoSupport.redrivePolicy;
import static io.sluice.it.SqsAssert.INVALID_PARAMETER_VALUE;
import static io.sluice.it.SqsAssert.NON_EXISTENT_QUEUE;
import static io.sluice.it.SqsAssert.QUEUE_ALREADY_EXISTS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.ListDeadLetterSourceQueuesResponse;

/** RedrivePolicy and RedriveAllowPolicy validation, and ListDeadLetterSourceQueues. */
@Timeout(30)
class DeadLetterPolicyTest {

    @RegisterExtension
    static final BrokerExtension broker = new BrokerExtension();

    private SqsClient sqs() {
        return broker.sqs();
    }

    private void setAttr(String url, String name, String value) {
        sqs().setQueueAttributes(r -> r.queueUrl(url).attributesWithStrings(Map.of(name, value)));
    }

    private static void assertPolicy(String json, String targetArn, int maxReceiveCount) {
        assertTrue(json != null && !json.isBlank(), "RedrivePolicy missing");
        JsonObject p = new JsonObject(json);
        assertEquals(targetArn, p.getString("deadLetterTargetArn"), "deadLetterTargetArn in " + json);
        assertEquals(
                String.valueOf(maxReceiveCount),
                String.valueOf(p.getValue("maxReceiveCount")),
                "maxReceiveCount in " + json);
    }

    @Test
    void redrivePolicyOnCreateAndOnSetIsEchoed() {
        String dlq = broker.createQueue("dlq");
        String dlqArn = arnOf(broker, dlq);
        String onCreate = broker.createQueue("src", Map.of("RedrivePolicy", redrivePolicy(dlqArn, 2)));
        assertPolicy(broker.attribute(onCreate, "RedrivePolicy"), dlqArn, 2);
        assertPolicy(broker.attributes(onCreate).get("RedrivePolicy"), dlqArn, 2);

        String onSet = broker.createQueue("src2");
        setAttr(onSet, "RedrivePolicy", redrivePolicy(dlqArn, 1000));
        assertPolicy(broker.attribute(onSet, "RedrivePolicy"), dlqArn, 1000);
        setAttr(onSet, "RedrivePolicy", redrivePolicy(dlqArn, 1));
        assertPolicy(broker.attribute(onSet, "RedrivePolicy"), dlqArn, 1);
        setAttr(onSet, "VisibilityTimeout", "40");
        assertPolicy(broker.attribute(onSet, "RedrivePolicy"), dlqArn, 1);
        setAttr(onSet, "RedrivePolicy", "");
        assertNull(broker.attributes(onSet).get("RedrivePolicy"), "an empty RedrivePolicy removes the policy");
        assertEquals("40", broker.attribute(onSet, "VisibilityTimeout"));

        // Creating the queue again is idempotent with the same policy, refused with another.
        String srcName = BrokerExtension.nameOf(onCreate);
        assertEquals(
                onCreate,
                sqs().createQueue(r -> r.queueName(srcName)
                                .attributesWithStrings(Map.of("RedrivePolicy", redrivePolicy(dlqArn, 2))))
                        .queueUrl());
        assertErrorCode(
                QUEUE_ALREADY_EXISTS,
                () -> sqs().createQueue(r ->
                        r.queueName(srcName).attributesWithStrings(Map.of("RedrivePolicy", redrivePolicy(dlqArn, 3)))),
                "CreateQueue of an existing queue with another RedrivePolicy");

        // maxReceiveCount given as a string, as the console and many tools send it.
        String asString = broker.createQueue(
                "src3",
                Map.of("RedrivePolicy", "{\"deadLetterTargetArn\":\"" + dlqArn + "\",\"maxReceiveCount\":\"5\"}"));
        assertPolicy(broker.attribute(asString, "RedrivePolicy"), dlqArn, 5);

        String fifoDlq = createFifoQueue(broker, "fdlq");
        String fifoSrc =
                createFifoQueue(broker, "fsrc", Map.of("RedrivePolicy", redrivePolicy(arnOf(broker, fifoDlq), 3)));
        assertPolicy(broker.attribute(fifoSrc, "RedrivePolicy"), arnOf(broker, fifoDlq), 3);
    }

    @Test
    void invalidRedrivePoliciesAreInvalidParameterValue() {
        String dlq = broker.createQueue("dlq");
        String dlqArn = arnOf(broker, dlq);
        String fifoDlq = createFifoQueue(broker, "fdlq");
        String src = broker.createQueue("src");
        String fifoSrc = createFifoQueue(broker, "fsrc");
        Map<String, String> bad = new LinkedHashMap<>();
        bad.put("maxReceiveCount 0", redrivePolicy(dlqArn, 0));
        bad.put("maxReceiveCount 1001", redrivePolicy(dlqArn, 1001));
        bad.put("maxReceiveCount -1", redrivePolicy(dlqArn, -1));
        bad.put(
                "target does not exist",
                redrivePolicy(BrokerExtension.expectedArn("no-such-dlq-" + System.nanoTime()), 2));
        bad.put(
                "no deadLetterTargetArn",
                new JsonObject().put("maxReceiveCount", 2).encode());
        bad.put("malformed JSON", "{\"deadLetterTargetArn\":\"" + dlqArn + "\",\"maxReceiveCount\":");
        bad.put("not JSON", "maxReceiveCount=2");
        bad.put("standard source, FIFO DLQ", redrivePolicy(arnOf(broker, fifoDlq), 2));
        bad.forEach((what, policy) -> {
            assertErrorCode(
                    INVALID_PARAMETER_VALUE,
                    () -> setAttr(src, "RedrivePolicy", policy),
                    "SetQueueAttributes RedrivePolicy (" + what + ") " + policy);
            String name = BrokerExtension.uniqueName("badsrc");
            assertErrorCode(
                    INVALID_PARAMETER_VALUE,
                    () -> sqs().createQueue(
                                    r -> r.queueName(name).attributesWithStrings(Map.of("RedrivePolicy", policy))),
                    "CreateQueue RedrivePolicy (" + what + ") " + policy);
            assertErrorCode(
                    NON_EXISTENT_QUEUE,
                    () -> sqs().getQueueUrl(r -> r.queueName(name)),
                    "a refused CreateQueue (" + what + ") must not create the queue");
        });
        assertErrorCode(
                INVALID_PARAMETER_VALUE,
                () -> setAttr(fifoSrc, "RedrivePolicy", redrivePolicy(dlqArn, 2)),
                "FIFO source with a standard DLQ");
        assertNull(broker.attributes(src).get("RedrivePolicy"), "refused policies leave the source without one");
        assertNull(broker.attributes(fifoSrc).get("RedrivePolicy"));
    }

    @Test
    void redriveAllowPolicyDenyAllRefusesEverySource() {
        String dlq = broker.createQueue("deny", Map.of("RedriveAllowPolicy", "{\"redrivePermission\":\"denyAll\"}"));
        String src = broker.createQueue("src");
        assertErrorCode(
                INVALID_PARAMETER_VALUE,
                () -> setAttr(src, "RedrivePolicy", redrivePolicy(arnOf(broker, dlq), 2)),
                "RedrivePolicy pointing at a denyAll DLQ");
        String name = BrokerExtension.uniqueName("src");
        assertErrorCode(
                INVALID_PARAMETER_VALUE,
                () -> sqs().createQueue(r -> r.queueName(name)
                        .attributesWithStrings(Map.of("RedrivePolicy", redrivePolicy(arnOf(broker, dlq), 2)))),
                "CreateQueue with a RedrivePolicy pointing at a denyAll DLQ");
        new JsonObject(broker.attribute(dlq, "RedriveAllowPolicy")); // echoed as JSON

        // allowAll (the default) permits it again.
        setAttr(dlq, "RedriveAllowPolicy", "{\"redrivePermission\":\"allowAll\"}");
        setAttr(src, "RedrivePolicy", redrivePolicy(arnOf(broker, dlq), 2));
        assertPolicy(broker.attribute(src, "RedrivePolicy"), arnOf(broker, dlq), 2);
    }

    @Test
    void redriveAllowPolicyByQueueAllowsOnlyTheListedSources() {
        String a = broker.createQueue("a");
        String b = broker.createQueue("b");
        String dlq = broker.createQueue("byq", Map.of("RedriveAllowPolicy", redriveAllowByQueue(arnOf(broker, a))));
        JsonObject echoed = new JsonObject(broker.attribute(dlq, "RedriveAllowPolicy"));
        assertEquals("byQueue", echoed.getString("redrivePermission"));
        assertEquals(
                List.of(arnOf(broker, a)),
                echoed.getJsonArray("sourceQueueArns").getList());

        setAttr(a, "RedrivePolicy", redrivePolicy(arnOf(broker, dlq), 2));
        assertPolicy(broker.attribute(a, "RedrivePolicy"), arnOf(broker, dlq), 2);
        assertErrorCode(
                INVALID_PARAMETER_VALUE,
                () -> setAttr(b, "RedrivePolicy", redrivePolicy(arnOf(broker, dlq), 2)),
                "RedrivePolicy of B pointing at a DLQ that allows only A");
        assertNull(broker.attributes(b).get("RedrivePolicy"));
    }

    @Test
    void byQueueWithMoreThanTenSourcesIsInvalidParameterValue() {
        String dlq = broker.createQueue("many");
        String[] eleven = new String[11];
        for (int i = 0; i < eleven.length; i++) {
            eleven[i] = BrokerExtension.expectedArn("source-" + i);
        }
        assertErrorCode(
                INVALID_PARAMETER_VALUE,
                () -> setAttr(dlq, "RedriveAllowPolicy", redriveAllowByQueue(eleven)),
                "RedriveAllowPolicy byQueue with 11 sourceQueueArns");
        String[] ten = Arrays.copyOf(eleven, 10);
        setAttr(dlq, "RedriveAllowPolicy", redriveAllowByQueue(ten));
        assertEquals(
                10,
                new JsonObject(broker.attribute(dlq, "RedriveAllowPolicy"))
                        .getJsonArray("sourceQueueArns")
                        .size());
    }

    @Test
    void listDeadLetterSourceQueuesIncludesSourcesSetAfterCreation() {
        String dlq = broker.createQueue("listdlq");
        String dlqArn = arnOf(broker, dlq);
        String other = broker.createQueue("otherdlq");
        String created = broker.createQueue("created", Map.of("RedrivePolicy", redrivePolicy(dlqArn, 3)));
        String setLater = broker.createQueue("later");
        setAttr(setLater, "RedrivePolicy", redrivePolicy(dlqArn, 3));
        broker.createQueue("elsewhere", Map.of("RedrivePolicy", redrivePolicy(arnOf(broker, other), 3)));
        broker.createQueue("plain");

        ListDeadLetterSourceQueuesResponse resp = sqs().listDeadLetterSourceQueues(r -> r.queueUrl(dlq));
        assertEquals(Set.of(created, setLater), new HashSet<>(resp.queueUrls()));
        assertEquals(2, resp.queueUrls().size(), "no duplicates: " + resp.queueUrls());

        assertTrue(
                sqs().listDeadLetterSourceQueues(r -> r.queueUrl(created))
                        .queueUrls()
                        .isEmpty(),
                "a queue that is nobody's DLQ has no sources");
    }

    @Test
    void listDeadLetterSourceQueuesPages() {
        String dlq = broker.createQueue("pagedlq");
        String dlqArn = arnOf(broker, dlq);
        Set<String> sources = new HashSet<>();
        for (int i = 0; i < 5; i++) {
            sources.add(broker.createQueue("pagesrc", Map.of("RedrivePolicy", redrivePolicy(dlqArn, 3))));
        }
        List<String> seen = new ArrayList<>();
        String token = null;
        int pages = 0;
        do {
            String t = token;
            ListDeadLetterSourceQueuesResponse page = sqs().listDeadLetterSourceQueues(
                            r -> r.queueUrl(dlq).maxResults(2).nextToken(t));
            assertTrue(page.queueUrls().size() <= 2, "MaxResults=2 returned " + page.queueUrls());
            assertFalse(page.queueUrls().isEmpty() && page.nextToken() != null, "an empty page with a NextToken");
            seen.addAll(page.queueUrls());
            token = page.nextToken();
            pages++;
        } while (token != null && pages < 10);
        assertEquals(3, pages, "5 sources in pages of 2");
        assertEquals(5, seen.size(), "no source twice: " + seen);
        assertEquals(sources, new HashSet<>(seen));

        ListDeadLetterSourceQueuesResponse all =
                sqs().listDeadLetterSourceQueues(r -> r.queueUrl(dlq).maxResults(1000));
        assertEquals(sources, new HashSet<>(all.queueUrls()));
        assertNull(all.nextToken());
    }

    @Test
    void listDeadLetterSourceQueuesOfAMissingQueueIsNonExistentQueue() {
        String missing = broker.expectedQueueUrl("no-such-queue-" + System.nanoTime());
        assertErrorCode(
                NON_EXISTENT_QUEUE,
                () -> sqs().listDeadLetterSourceQueues(r -> r.queueUrl(missing)),
                "ListDeadLetterSourceQueues of a missing queue");
    }
}
