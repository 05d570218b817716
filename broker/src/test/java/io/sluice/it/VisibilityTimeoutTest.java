package io.sluice.it;

import static io.sluice.it.SqsAssert.INVALID_PARAMETER_VALUE;
import static io.sluice.it.SqsAssert.assertNothingReceivable;
import static io.sluice.it.SqsAssert.assertSqsError;
import static io.sluice.it.SqsAssert.awaitAttribute;
import static io.sluice.it.SqsAssert.awaitMessage;
import static io.sluice.it.SqsAssert.receive;
import static io.sluice.it.SqsAssert.receiveOne;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.SqsException;

/** Visibility timeout: queue default, per-receive override, ChangeMessageVisibility rules, the 12-hour cap. */
@Timeout(30)
class VisibilityTimeoutTest {

    @RegisterExtension
    static final BrokerExtension broker = new BrokerExtension();

    private SqsClient sqs() {
        return broker.sqs();
    }

    @Test
    void receiveOverrideExpiresAndMessageIsDeliveredAgain() {
        String url = broker.createQueue("expiry");
        sqs().sendMessage(r -> r.queueUrl(url).messageBody("again"));
        List<Message> first =
                receive(sqs(), r -> r.queueUrl(url).maxNumberOfMessages(1).visibilityTimeout(1));
        assertEquals(1, first.size());
        assertNothingReceivable(sqs(), url);
        assertEquals("30", broker.attribute(url, "VisibilityTimeout"), "a receive override does not change the queue");

        Message again = awaitMessage(sqs(), url, Duration.ofSeconds(5));
        assertEquals(first.get(0).messageId(), again.messageId());
        assertEquals("2", again.attributesAsStrings().get("ApproximateReceiveCount"));
    }

    @Test
    void queueDefaultVisibilityTimeoutApplies() {
        String url = broker.createQueue("qvis", Map.of("VisibilityTimeout", "1"));
        sqs().sendMessage(r -> r.queueUrl(url).messageBody("x"));
        long start = System.nanoTime();
        receiveOne(sqs(), url);
        assertNothingReceivable(sqs(), url);
        awaitMessage(sqs(), url, Duration.ofSeconds(5));
        assertTrue((System.nanoTime() - start) / 1_000_000 >= 700, "message came back before its 1 s timeout");
    }

    @Test
    void changeVisibilityToZeroReleasesAtOnce() {
        String url = broker.createQueue("zero");
        sqs().sendMessage(r -> r.queueUrl(url).messageBody("x"));
        Message m = receiveOne(sqs(), url);
        assertNothingReceivable(sqs(), url);
        sqs().changeMessageVisibility(
                        r -> r.queueUrl(url).receiptHandle(m.receiptHandle()).visibilityTimeout(0));
        Message again = receiveOne(sqs(), url);
        assertEquals(m.messageId(), again.messageId());
    }

    @Test
    void changeVisibilityResetsFromNowInsteadOfAdding() {
        String url = broker.createQueue("reset");
        sqs().sendMessage(r -> r.queueUrl(url).messageBody("x"));
        Message m = receive(sqs(), r -> r.queueUrl(url).maxNumberOfMessages(1).visibilityTimeout(20))
                .get(0);
        long changedAt = System.nanoTime();
        sqs().changeMessageVisibility(
                        r -> r.queueUrl(url).receiptHandle(m.receiptHandle()).visibilityTimeout(1));
        assertNothingReceivable(sqs(), url);
        // Reset: visible ~1 s after the change. Added: 21 s.
        Message again = awaitMessage(sqs(), url, Duration.ofSeconds(4));
        assertEquals(m.messageId(), again.messageId());
        assertTrue((System.nanoTime() - changedAt) / 1_000_000 >= 700, "visible before the new 1 s timeout ended");
    }

    @Test
    void changeVisibilityCanExtendAnInFlightMessage() {
        String url = broker.createQueue("extend");
        sqs().sendMessage(r -> r.queueUrl(url).messageBody("x"));
        Message m = receive(sqs(), r -> r.queueUrl(url).maxNumberOfMessages(1).visibilityTimeout(1))
                .get(0);
        sqs().changeMessageVisibility(
                        r -> r.queueUrl(url).receiptHandle(m.receiptHandle()).visibilityTimeout(30));
        // Without the extension it would be visible again after 1 s; check it stays hidden for 2 s.
        List<Message> during = sqs().receiveMessage(
                        r -> r.queueUrl(url).waitTimeSeconds(2).maxNumberOfMessages(1))
                .messages();
        assertTrue(during.isEmpty(), "extended message came back: " + during);
        sqs().deleteMessage(r -> r.queueUrl(url).receiptHandle(m.receiptHandle()));
        awaitAttribute(broker, url, "ApproximateNumberOfMessagesNotVisible", "0");
    }

    @Test
    void changedTimeoutAppliesToThatReceiveOnly() {
        String url = broker.createQueue("once", Map.of("VisibilityTimeout", "2"));
        sqs().sendMessage(r -> r.queueUrl(url).messageBody("x"));
        Message m = receiveOne(sqs(), url);
        sqs().changeMessageVisibility(
                        r -> r.queueUrl(url).receiptHandle(m.receiptHandle()).visibilityTimeout(0));
        receiveOne(sqs(), url);
        // The next receive uses the queue's 2 s again, not the 0 set by ChangeMessageVisibility.
        assertNothingReceivable(sqs(), url);
        awaitMessage(sqs(), url, Duration.ofSeconds(5));
    }

    @Test
    void twelveHourCapCountsFromTheReceive() {
        String url = broker.createQueue("cap");
        sqs().sendMessage(r -> r.queueUrl(url).messageBody("x"));
        Message m = receiveOne(sqs(), url);
        assertSqsError(
                SqsException.class,
                INVALID_PARAMETER_VALUE,
                400,
                () -> sqs().changeMessageVisibility(r ->
                        r.queueUrl(url).receiptHandle(m.receiptHandle()).visibilityTimeout(43200)));
        sqs().changeMessageVisibility(
                        r -> r.queueUrl(url).receiptHandle(m.receiptHandle()).visibilityTimeout(43195));
        // Extending again does not reset the cap.
        assertSqsError(
                SqsException.class,
                INVALID_PARAMETER_VALUE,
                400,
                () -> sqs().changeMessageVisibility(r ->
                        r.queueUrl(url).receiptHandle(m.receiptHandle()).visibilityTimeout(43200)));
        assertSqsError(
                SqsException.class,
                INVALID_PARAMETER_VALUE,
                400,
                () -> sqs().changeMessageVisibility(r ->
                        r.queueUrl(url).receiptHandle(m.receiptHandle()).visibilityTimeout(43201)));
        assertSqsError(
                SqsException.class,
                INVALID_PARAMETER_VALUE,
                400,
                () -> sqs().changeMessageVisibility(r ->
                        r.queueUrl(url).receiptHandle(m.receiptHandle()).visibilityTimeout(-1)));
        assertNothingReceivable(sqs(), url);
    }

    @Test
    void changeVisibilityOfDeletedMessageIsInvalidParameterValue() {
        String url = broker.createQueue("gone");
        sqs().sendMessage(r -> r.queueUrl(url).messageBody("x"));
        Message m = receiveOne(sqs(), url);
        sqs().deleteMessage(r -> r.queueUrl(url).receiptHandle(m.receiptHandle()));
        assertSqsError(
                SqsException.class,
                INVALID_PARAMETER_VALUE,
                400,
                () -> sqs().changeMessageVisibility(r ->
                        r.queueUrl(url).receiptHandle(m.receiptHandle()).visibilityTimeout(10)));
    }

    @Test
    void visibilityTimeoutZeroOnReceiveLeavesMessageVisible() {
        String url = broker.createQueue("vt0");
        sqs().sendMessage(r -> r.queueUrl(url).messageBody("x"));
        Message first = receive(
                        sqs(), r -> r.queueUrl(url).maxNumberOfMessages(1).visibilityTimeout(0))
                .get(0);
        Message second = awaitMessage(sqs(), url, Duration.ofSeconds(2));
        assertEquals(first.messageId(), second.messageId());
    }

    @Test
    void latestHandleStillDeletesAfterVisibilityExpired() {
        String url = broker.createQueue("expiredhandle");
        sqs().sendMessage(r -> r.queueUrl(url).messageBody("x"));
        Message m = receive(sqs(), r -> r.queueUrl(url).maxNumberOfMessages(1).visibilityTimeout(1))
                .get(0);
        // Visible again but not received again: the handle is still the most recent one.
        awaitAttribute(broker, url, "ApproximateNumberOfMessages", "1");
        sqs().deleteMessage(r -> r.queueUrl(url).receiptHandle(m.receiptHandle()));
        awaitAttribute(broker, url, "ApproximateNumberOfMessages", "0");
        awaitAttribute(broker, url, "ApproximateNumberOfMessagesNotVisible", "0");
        assertNothingReceivable(sqs(), url);
    }
}
