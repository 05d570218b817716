package io.sluice.config;

/**
 * What the HTTP endpoint accepts from a connection before the SQS layer sees a request.
 *
 * @param maxHeaderBytes      total size of a request's header lines; larger heads get 431
 * @param maxInitialLineBytes length of the request line (method, path and query string); longer ones get 414
 * @param idleTimeoutSeconds  a connection that neither sends nor receives for this long is closed: a stalled
 *                            or truncated request as well as an idle keep-alive connection. Above the longest
 *                            long poll (20 s), which sends nothing while it waits
 * @param maxConnections      HTTP connections open at once; a connection past the limit is closed as it opens
 */
public record HttpLimits(int maxHeaderBytes, int maxInitialLineBytes, int idleTimeoutSeconds, int maxConnections) {

    public static final int DEFAULT_MAX_HEADER_BYTES = 16 * 1024;
    public static final int DEFAULT_MAX_INITIAL_LINE_BYTES = 16 * 1024;
    public static final int DEFAULT_IDLE_TIMEOUT_SECONDS = 75;
    public static final int DEFAULT_MAX_CONNECTIONS = 10_000;
}
