package io.sluice.server;

import io.sluice.protocol.SqsAction;
import io.vertx.core.Future;

/**
 * What a handler knows of the caller besides the parameters.
 *
 * @param accountId  the caller's account: its access key's, or the node's when authentication is off
 * @param action     the action asked for
 * @param clientGone completes if the client closes the connection before it is answered
 */
record RequestInfo(String requestId, String senderId, String accountId, SqsAction action, Future<Void> clientGone) {}
