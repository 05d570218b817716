package io.sluice.protocol;

/**
 * One decoded SQS call. Whatever the wire protocol, {@code params} holds the JSON protocol's
 * request shape, so handlers never care how the request arrived; {@code protocol} only decides
 * how the reply is encoded.
 */
public record SqsRequest(WireProtocol protocol, SqsAction action, Params params) {}
