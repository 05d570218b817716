package io.sluice.protocol;

/**
 * The two request/response encodings SQS clients use. Older SDKs (and curl users) speak the
 * form-encoded Query protocol with XML replies; current SDKs speak AWS JSON 1.0.
 */
public enum WireProtocol {
    QUERY,
    JSON
}
