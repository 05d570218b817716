package io.sluice.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.config.BrokerConfig;
import io.sluice.config.ConfigLoader;
import io.sluice.server.SluiceNode;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.http.SdkHttpClient;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;

/**
 * Starts one Sluice node per test class (port 0, 4 partitions, short-poll sampling off so that a
 * single short poll sees every partition) and an AWS SDK v2 client pointed at it.
 *
 * <pre>
 * &#64;RegisterExtension
 * static final BrokerExtension broker = new BrokerExtension();
 * </pre>
 */
public final class BrokerExtension implements BeforeAllCallback, AfterAllCallback {
    private static final Pattern METRIC_SAMPLE = Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)(\\{[^}]*\\})? (\\S+)$");

    public static final String ACCOUNT = "000000000000";
    public static final String REGION = "us-east-1";

    private static final AtomicInteger COUNTER = new AtomicInteger();

    private final List<String> args;
    private SluiceNode node;
    private SdkHttpClient httpClient;
    private SqsClient sqs;

    /** @param args command-line options after the test defaults, which they override (e.g. "--in-flight-limit", "5") */
    public BrokerExtension(String... args) {
        this.args = List.of(args);
    }

    /** The configuration of a test node: a free port, 4 partitions, no short-poll sampling, then {@code args}. */
    public static BrokerConfig testConfig(String... args) {
        List<String> all = new ArrayList<>(
                List.of("--host", "127.0.0.1", "--port", "0", "--partitions", "4", "--short-poll-sampling", "false"));
        all.addAll(List.of(args));
        return ConfigLoader.load(all, Map.of());
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        node = SluiceNode.start(testConfig(args.toArray(String[]::new)));
        httpClient = UrlConnectionHttpClient.builder()
                .connectionTimeout(Duration.ofSeconds(5))
                .socketTimeout(Duration.ofSeconds(40))
                .build();
        sqs = SqsClient.builder()
                .endpointOverride(URI.create(node.baseUrl()))
                .region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("x", "x")))
                .httpClient(httpClient)
                .overrideConfiguration(o -> o.retryStrategy(AwsRetryStrategy.doNotRetry()))
                .build();
    }

    @Override
    public void afterAll(ExtensionContext context) {
        try {
            if (sqs != null) {
                sqs.close();
            }
            if (httpClient != null) {
                httpClient.close();
            }
        } finally {
            if (node != null) {
                node.close();
            }
        }
    }

    public SqsClient sqs() {
        return sqs;
    }

    public SluiceNode node() {
        return node;
    }

    /** The node's /metrics, as samples by "name{labels}" the way Prometheus prints them. */
    public Map<String, Double> metrics() {
        return metrics(baseUrl());
    }

    /** The /metrics of the node at {@code baseUrl}, as samples by "name{labels}". */
    public static Map<String, Double> metrics(String baseUrl) {
        HttpResponse<String> r = new RawHttp(baseUrl)
                .send(HttpRequest.newBuilder(URI.create(baseUrl + "/metrics"))
                        .GET()
                        .build());
        assertEquals(200, r.statusCode());
        assertTrue(r.headers().firstValue("Content-Type").orElse("").startsWith("text/plain"));
        Map<String, Double> samples = new HashMap<>();
        for (String line : r.body().split("\n")) {
            Matcher m = METRIC_SAMPLE.matcher(line);
            if (!line.startsWith("#") && m.matches()) {
                samples.put(m.group(1) + (m.group(2) == null ? "" : m.group(2)), Double.parseDouble(m.group(3)));
            }
        }
        return samples;
    }

    public String baseUrl() {
        return node.baseUrl();
    }

    public int port() {
        return node.port();
    }

    /** A queue name no other test uses: {@code prefix-<counter>-<random>}. */
    public static String uniqueName(String prefix) {
        return prefix + "-" + COUNTER.incrementAndGet() + "-"
                + Integer.toHexString(ThreadLocalRandom.current().nextInt(0x100000, 0xFFFFFF));
    }

    /** The URL the broker must hand out for a queue of this name. */
    public String expectedQueueUrl(String name) {
        return baseUrl() + "/" + ACCOUNT + "/" + name;
    }

    public static String expectedArn(String name) {
        return "arn:aws:sqs:" + REGION + ":" + ACCOUNT + ":" + name;
    }

    /** Creates a queue with a unique name and default attributes; returns its URL. */
    public String createQueue(String prefix) {
        return createQueue(prefix, Map.of());
    }

    /** Creates a queue with a unique name and the given attributes; returns its URL. */
    public String createQueue(String prefix, Map<String, String> attributes) {
        String name = uniqueName(prefix);
        return sqs.createQueue(r -> r.queueName(name).attributesWithStrings(attributes))
                .queueUrl();
    }

    /** All attributes of a queue as plain strings. */
    public Map<String, String> attributes(String queueUrl) {
        return sqs.getQueueAttributes(r -> r.queueUrl(queueUrl).attributeNames(QueueAttributeName.ALL))
                .attributesAsStrings();
    }

    public String attribute(String queueUrl, String name) {
        return sqs.getQueueAttributes(r -> r.queueUrl(queueUrl).attributeNamesWithStrings(name))
                .attributesAsStrings()
                .get(name);
    }

    public static String nameOf(String queueUrl) {
        return queueUrl.substring(queueUrl.lastIndexOf('/') + 1);
    }
}
