package io.sluice.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.function.Executable;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;
import software.amazon.awssdk.services.sqs.model.SqsException;

/**
 * Each access key acts for its account: queue URLs and ARNs carry it, two accounts' queues of one
 * name are separate, and another account reaches a queue only as far as its Policy allows.
 */
class AccountsAndPoliciesTest {
    private static final String ACCOUNT_A = "111111111111";
    private static final String ACCOUNT_B = "222222222222";

    @RegisterExtension
    static final BrokerExtension broker =
            new BrokerExtension("--credentials", "AKIDA:secretA:" + ACCOUNT_A + ",AKIDB:secretB:" + ACCOUNT_B);

    private static SqsClient a;
    private static SqsClient b;

    @BeforeAll
    static void clients() {
        a = client("AKIDA", "secretA");
        b = client("AKIDB", "secretB");
    }

    @AfterAll
    static void close() {
        a.close();
        b.close();
    }

    private static SqsClient client(String key, String secret) {
        return SqsClient.builder()
                .endpointOverride(URI.create(broker.baseUrl()))
                .region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(key, secret)))
                .httpClient(UrlConnectionHttpClient.create())
                .overrideConfiguration(o -> o.retryStrategy(AwsRetryStrategy.doNotRetry()))
                .build();
    }

    private static void denied(Executable call) {
        SqsException e = assertThrows(SqsException.class, call);
        assertEquals(403, e.statusCode());
        assertEquals("AccessDenied", e.awsErrorDetails().errorCode());
    }

    @Test
    void twoAccountsQueuesOfOneNameAreSeparate() {
        String name = BrokerExtension.uniqueName("same-name");
        String urlA = a.createQueue(r -> r.queueName(name)).queueUrl();
        String urlB = b.createQueue(r -> r.queueName(name)).queueUrl();
        assertEquals(broker.baseUrl() + "/" + ACCOUNT_A + "/" + name, urlA);
        assertEquals(broker.baseUrl() + "/" + ACCOUNT_B + "/" + name, urlB);
        assertEquals(
                "arn:aws:sqs:us-east-1:" + ACCOUNT_B + ":" + name,
                b.getQueueAttributes(r -> r.queueUrl(urlB).attributeNames(QueueAttributeName.QUEUE_ARN))
                        .attributes()
                        .get(QueueAttributeName.QUEUE_ARN));
        a.sendMessage(r -> r.queueUrl(urlA).messageBody("for A"));
        assertEquals(
                "for A",
                a.receiveMessage(r -> r.queueUrl(urlA).waitTimeSeconds(2))
                        .messages()
                        .get(0)
                        .body());
        assertTrue(b.receiveMessage(r -> r.queueUrl(urlB)).messages().isEmpty(), "B's queue holds nothing of A's");
        assertEquals(urlB, b.getQueueUrl(r -> r.queueName(name)).queueUrl());
        assertTrue(b.listQueues(r -> r.queueNamePrefix(name)).queueUrls().equals(List.of(urlB)));
        assertFalse(a.listQueues().queueUrls().contains(urlB));
    }

    @Test
    void anotherAccountGetsOnlyWhatThePolicyAllows() {
        String name = BrokerExtension.uniqueName("shared");
        String url = a.createQueue(r -> r.queueName(name)).queueUrl();
        denied(() -> b.sendMessage(r -> r.queueUrl(url).messageBody("not allowed")));
        denied(() -> b.getQueueUrl(r -> r.queueName(name).queueOwnerAWSAccountId(ACCOUNT_A)));

        a.addPermission(
                r -> r.queueUrl(url).label("b-sends").awsAccountIds(ACCOUNT_B).actions("SendMessage"));
        b.sendMessage(r -> r.queueUrl(url).messageBody("from B"));
        b.sendMessageBatch(r -> r.queueUrl(url).entries(e -> e.id("1").messageBody("batch from B")));
        denied(() -> b.getQueueUrl(r -> r.queueName(name).queueOwnerAWSAccountId(ACCOUNT_A)));
        denied(() -> b.receiveMessage(r -> r.queueUrl(url)));
        denied(() -> b.getQueueAttributes(r -> r.queueUrl(url).attributeNames(QueueAttributeName.ALL)));
        denied(() -> b.purgeQueue(r -> r.queueUrl(url)));

        a.addPermission(r -> r.queueUrl(url)
                .label("b-reads")
                .awsAccountIds(ACCOUNT_B)
                .actions("ReceiveMessage", "DeleteMessage", "ChangeMessageVisibility", "GetQueueAttributes"));
        var got = b.receiveMessage(r -> r.queueUrl(url).maxNumberOfMessages(10).waitTimeSeconds(2))
                .messages();
        assertFalse(got.isEmpty());
        b.changeMessageVisibility(
                r -> r.queueUrl(url).receiptHandle(got.get(0).receiptHandle()).visibilityTimeout(0));
        b.deleteMessage(r -> r.queueUrl(url).receiptHandle(got.get(0).receiptHandle()));
        assertTrue(b.getQueueAttributes(r -> r.queueUrl(url).attributeNames(QueueAttributeName.ALL))
                .attributes()
                .containsKey(QueueAttributeName.POLICY));

        a.removePermission(r -> r.queueUrl(url).label("b-sends"));
        denied(() -> b.sendMessage(r -> r.queueUrl(url).messageBody("no longer")));
    }

    @Test
    void aDenyStatementWinsAndTheOwnerIsAlwaysAllowed() {
        String name = BrokerExtension.uniqueName("policy");
        String url = a.createQueue(r -> r.queueName(name)).queueUrl();
        String arn = "arn:aws:sqs:us-east-1:" + ACCOUNT_A + ":" + name;
        String policy = """
                {"Version":"2012-10-17","Statement":[
                  {"Effect":"Allow","Principal":"*","Action":"sqs:*","Resource":"%s"},
                  {"Effect":"Deny","Principal":{"AWS":"arn:aws:iam::%s:root"},"Action":"SQS:Delete*","Resource":"%s"},
                  {"Effect":"Deny","Principal":{"AWS":"%s"},"Action":"sqs:*","Resource":"%s"}]}
                """.formatted(arn, ACCOUNT_B, arn, ACCOUNT_A, arn);
        a.setQueueAttributes(r -> r.queueUrl(url).attributes(Map.of(QueueAttributeName.POLICY, policy)));
        b.sendMessage(r -> r.queueUrl(url).messageBody("allowed by *"));
        var got = b.receiveMessage(r -> r.queueUrl(url).waitTimeSeconds(2)).messages();
        denied(() ->
                b.deleteMessage(r -> r.queueUrl(url).receiptHandle(got.get(0).receiptHandle())));
        // The owner's own account is denied everything by the policy, and still allowed.
        a.deleteMessage(r -> r.queueUrl(url).receiptHandle(got.get(0).receiptHandle()));
        assertEquals(
                "0",
                a.getQueueAttributes(r -> r.queueUrl(url)
                                .attributeNames(QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES_NOT_VISIBLE))
                        .attributes()
                        .get(QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES_NOT_VISIBLE),
                "the owner's delete took the message B had received");
    }
}
