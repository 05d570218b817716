package io.sluice.config;

import java.util.List;

/**
 * Everything a node can be told, with the embedded defaults: in memory, 127.0.0.1:9324,
 * queue URLs of the form {@code http://127.0.0.1:9324/000000000000/name}.
 *
 * @param host              address the HTTP server binds to
 * @param port              HTTP port; 0 picks a free one (tests)
 * @param baseUrl           public base URL put in queue URLs; null derives it from host and port
 * @param accountId         the account id in queue URLs and ARNs
 * @param region            the region in ARNs
 * @param partitions        partitions per new queue
 * @param shortPollSampling whether short polls sample a subset of partitions, as SQS does
 * @param inFlightLimit     in-flight messages per standard queue before short polls get OverLimit
 * @param maxRequestBytes   largest HTTP request body accepted, checked before buffering
 * @param fifoInFlightLimit in-flight messages per FIFO queue; receives past it just get nothing more
 * @param cluster           how this node joins its cluster
 * @param credentials       the access keys requests must be signed with (SigV4); none turns authentication off
 * @param vertxMetrics      whether Vert.x's own metrics join the node's in /metrics
 * @param http              limits of the HTTP endpoint: header and request-line size, idle timeout, connections
 * @param eventLoops        event-loop threads (HTTP and partitions); 0: one per core, at least 2
 * @param nativeTransport   whether sockets use the operating system's native transport (Linux epoll) where
 *                          there is one, instead of Java NIO
 */
public record BrokerConfig(
        String host,
        int port,
        String baseUrl,
        String accountId,
        String region,
        int partitions,
        boolean shortPollSampling,
        int inFlightLimit,
        int maxRequestBytes,
        int fifoInFlightLimit,
        ClusterSettings cluster,
        List<AccessKey> credentials,
        HttpLimits http,
        boolean vertxMetrics,
        int eventLoops,
        boolean nativeTransport) {

    public static final int DEFAULT_PORT = 9324;
    /**
     * Room for a maximal message or batch (1 MiB of counted bytes) as it travels: form encoding
     * turns a UTF-8 byte into at most 3 ({@code %XX}), JSON's {@code \\uXXXX} escapes likewise,
     * a binary attribute value at most 4 (base64, then percent-encoded); plus the parameter names
     * of 10 entries with 10 attributes each. Anything larger cannot be a valid request and is
     * refused before it is buffered; a message that is merely too long gets SQS's own answer.
     */
    public static final int DEFAULT_MAX_REQUEST_BYTES = 4 * 1024 * 1024 + 256 * 1024;

    /** The base URL in queue URLs: the configured one, or the node's own address. */
    public String publicBaseUrl(int boundPort) {
        if (baseUrl != null && !baseUrl.isBlank()) {
            return baseUrl.endsWith("/") ? baseUrl.substring(0, baseUrl.length() - 1) : baseUrl;
        }
        String h = "0.0.0.0".equals(host) ? "127.0.0.1" : host;
        return "http://" + h + ":" + boundPort;
    }

    /** The same configuration on the port the node actually bound (when 0 asked for any free one). */
    public BrokerConfig withPort(int v) {
        return new BrokerConfig(
                host,
                v,
                baseUrl,
                accountId,
                region,
                partitions,
                shortPollSampling,
                inFlightLimit,
                maxRequestBytes,
                fifoInFlightLimit,
                cluster,
                credentials,
                http,
                vertxMetrics,
                eventLoops,
                nativeTransport);
    }

    /**
     * The event-loop threads to run: as configured, else one per core and at least 2. Vert.x's own
     * default is two per core; on 2 cores one node served SendMessage twice as fast on 2 loops as on
     * 4 (load-tests/README.md, stop 23), since a request whose partition runs on another loop costs a
     * thread hop. Three nodes sharing 2 cores served more on 1 loop each than on 2 (stop 42).
     */
    public int eventLoopThreads() {
        return eventLoops > 0 ? eventLoops : Math.max(2, Runtime.getRuntime().availableProcessors());
    }

    /** Whether requests must be signed. */
    public boolean authenticates() {
        return !credentials.isEmpty();
    }
}
