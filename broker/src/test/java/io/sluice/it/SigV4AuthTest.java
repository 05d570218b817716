package io.sluice.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.config.ConfigLoader;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.http.ContentStreamProvider;
import software.amazon.awssdk.http.SdkHttpMethod;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.http.auth.aws.signer.AwsV4FamilyHttpSigner.AuthLocation;
import software.amazon.awssdk.http.auth.aws.signer.AwsV4HttpSigner;
import software.amazon.awssdk.http.auth.spi.signer.SignRequest;
import software.amazon.awssdk.http.auth.spi.signer.SignedRequest;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.identity.spi.AwsCredentialsIdentity;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.SqsException;

/**
 * A node with access keys serves only requests signed with one of them (AWS Signature Version 4,
 * header and presigned forms), over both protocols, and answers the rest with the errors AWS
 * gives. Signed by the AWS SDK itself: its client for JSON, its signer for raw Query requests.
 */
class SigV4AuthTest {
    private static final String KEY = "AKIDSLUICETEST";
    private static final String SECRET = "s3cr3t/with+chars";

    @RegisterExtension
    static final BrokerExtension broker =
            new BrokerExtension("--credentials", KEY + ":" + SECRET + ", AKIDSECOND:other");

    private static SqsClient signed;
    private static RawHttp raw;

    @BeforeAll
    static void clients() {
        signed = client(KEY, SECRET);
        raw = new RawHttp(broker.baseUrl());
    }

    @AfterAll
    static void close() {
        signed.close();
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

    private static SqsException sdkError(String key, String secret) {
        try (SqsClient c = client(key, secret)) {
            return assertThrows(SqsException.class, () -> c.listQueues());
        }
    }

    @Test
    void correctlySignedSdkRequestsAreServed() {
        String url = signed.createQueue(r -> r.queueName(BrokerExtension.uniqueName("auth")))
                .queueUrl();
        signed.sendMessage(r -> r.queueUrl(url).messageBody("signed"));
        List<Message> got =
                signed.receiveMessage(r -> r.queueUrl(url).waitTimeSeconds(2)).messages();
        assertEquals("signed", got.get(0).body());
        signed.deleteMessage(r -> r.queueUrl(url).receiptHandle(got.get(0).receiptHandle()));
        // The second configured key works too.
        try (SqsClient second = client("AKIDSECOND", "other")) {
            assertTrue(second.listQueues().queueUrls().contains(url));
        }
    }

    @Test
    void unknownAccessKeyIsInvalidClientTokenId() {
        SqsException e = sdkError("AKIDUNKNOWN", SECRET);
        assertEquals(403, e.statusCode());
        assertEquals("InvalidClientTokenId", e.awsErrorDetails().errorCode());
    }

    @Test
    void wrongSecretIsSignatureDoesNotMatch() {
        SqsException e = sdkError(KEY, "not-the-secret");
        assertEquals(403, e.statusCode());
        assertEquals("SignatureDoesNotMatch", e.awsErrorDetails().errorCode());
    }

    @Test
    void unsignedRequestsAreRefusedInTheirProtocol() {
        RawHttp.queryError(raw.query("Action", "ListQueues"), 403, "MissingAuthenticationToken");
        HttpResponse<String> json = raw.json("AmazonSQS.ListQueues", "{}");
        assertEquals(403, json.statusCode());
        assertTrue(
                json.headers().firstValue("x-amzn-query-error").orElse("").startsWith("MissingAuthenticationToken;"),
                json.headers().map().toString());
    }

    @Test
    void malformedAuthorizationIsIncompleteSignature() {
        HttpResponse<String> r = raw.send(HttpRequest.newBuilder(URI.create(broker.baseUrl() + "/"))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .header("Authorization", "AWS4-HMAC-SHA256 Credential=" + KEY + "/20261201/us-east-1/sqs/aws4_request")
                .header("X-Amz-Date", "20261201T000000Z")
                .POST(HttpRequest.BodyPublishers.ofString("Action=ListQueues&Version=2012-11-05"))
                .build());
        RawHttp.queryError(r, 400, "IncompleteSignature");
    }

    @Test
    void signedQueryRequestsAreServedAndTamperingIsDetected() {
        String body = RawHttp.form("Action", "ListQueues", "Version", "2012-11-05");
        RawHttp.queryOk(raw.send(signedPost(body, body, r -> {})), "ListQueues");
        // The body changed after signing: same headers, other content.
        String tampered = RawHttp.form("Action", "ListQueues", "Version", "2012-11-05", "QueueNamePrefix", "x");
        RawHttp.queryError(raw.send(signedPost(body, tampered, r -> {})), 403, "SignatureDoesNotMatch");
    }

    @Test
    void aSignatureOlderThanFifteenMinutesIsRefused() {
        String body = RawHttp.form("Action", "ListQueues", "Version", "2012-11-05");
        Clock twentyMinutesAgo = Clock.fixed(Instant.now().minus(Duration.ofMinutes(20)), ZoneOffset.UTC);
        String message = RawHttp.queryErrorMessage(
                raw.send(signedPost(body, body, r -> r.putProperty(AwsV4HttpSigner.SIGNING_CLOCK, twentyMinutesAgo))),
                403,
                "SignatureDoesNotMatch");
        assertTrue(message.startsWith("Signature expired"), message);
    }

    @Test
    void presignedQueryStringRequestsAreServedUntilTheyExpire() {
        String query = "Action=ListQueues&Version=2012-11-05";
        RawHttp.queryOk(raw.send(presignedGet(query, Clock.systemUTC(), Duration.ofMinutes(5))), "ListQueues");
        Clock anHourAgo = Clock.fixed(Instant.now().minus(Duration.ofHours(1)), ZoneOffset.UTC);
        RawHttp.queryError(raw.send(presignedGet(query, anHourAgo, Duration.ofMinutes(5))), 400, "RequestExpired");
        // A presigned URL whose signature was altered.
        HttpRequest good = presignedGet(query, Clock.systemUTC(), Duration.ofMinutes(5));
        String altered = good.uri().toString().replaceAll("X-Amz-Signature=[0-9a-f]", "X-Amz-Signature=0");
        if (altered.equals(good.uri().toString())) {
            altered = good.uri().toString().replaceAll("X-Amz-Signature=[0-9a-f]", "X-Amz-Signature=1");
        }
        RawHttp.queryError(
                raw.send(HttpRequest.newBuilder(URI.create(altered)).GET().build()), 403, "SignatureDoesNotMatch");
    }

    @Test
    void theDefaultNodeNeedsNoKeys() {
        // The embedded default has no keys: the shared test node answers any signature.
        assertFalse(ConfigLoader.load(List.of(), Map.of()).authenticates());
    }

    /** A Query POST signed (by the SDK's signer) over {@code signedBody}, sending {@code sentBody}. */
    private static HttpRequest signedPost(
            String signedBody, String sentBody, Consumer<SignRequest.Builder<AwsCredentialsIdentity>> extra) {
        SdkHttpRequest request = SdkHttpRequest.builder()
                .method(SdkHttpMethod.POST)
                .uri(URI.create(broker.baseUrl() + "/"))
                .putHeader("Content-Type", "application/x-www-form-urlencoded; charset=utf-8")
                .build();
        SignedRequest s = AwsV4HttpSigner.create().sign(r -> {
            r.identity(AwsCredentialsIdentity.create(KEY, SECRET))
                    .request(request)
                    .payload(ContentStreamProvider.fromUtf8String(signedBody))
                    .putProperty(AwsV4HttpSigner.SERVICE_SIGNING_NAME, "sqs")
                    .putProperty(AwsV4HttpSigner.REGION_NAME, "us-east-1");
            extra.accept(r);
        });
        HttpRequest.Builder b = HttpRequest.newBuilder(s.request().getUri())
                .POST(HttpRequest.BodyPublishers.ofString(sentBody, StandardCharsets.UTF_8));
        copyHeaders(s.request(), b);
        return b.build();
    }

    private static HttpRequest presignedGet(String query, Clock clock, Duration expires) {
        SdkHttpRequest request = SdkHttpRequest.builder()
                .method(SdkHttpMethod.GET)
                .uri(URI.create(broker.baseUrl() + "/?" + query))
                .build();
        SignedRequest s = AwsV4HttpSigner.create()
                .sign(r -> r.identity(AwsCredentialsIdentity.create(KEY, SECRET))
                        .request(request)
                        .putProperty(AwsV4HttpSigner.SERVICE_SIGNING_NAME, "sqs")
                        .putProperty(AwsV4HttpSigner.REGION_NAME, "us-east-1")
                        .putProperty(AwsV4HttpSigner.AUTH_LOCATION, AuthLocation.QUERY_STRING)
                        .putProperty(AwsV4HttpSigner.EXPIRATION_DURATION, expires)
                        .putProperty(AwsV4HttpSigner.SIGNING_CLOCK, clock));
        HttpRequest.Builder b = HttpRequest.newBuilder(s.request().getUri()).GET();
        copyHeaders(s.request(), b);
        return b.build();
    }

    private static final Set<String> RESTRICTED = Set.of("host", "content-length", "connection", "expect", "upgrade");

    private static void copyHeaders(SdkHttpRequest signedRequest, HttpRequest.Builder b) {
        for (Map.Entry<String, List<String>> h : signedRequest.headers().entrySet()) {
            if (RESTRICTED.contains(h.getKey().toLowerCase())) {
                continue;
            }
            for (String v : h.getValue()) {
                b.header(h.getKey(), v);
            }
        }
    }
}
