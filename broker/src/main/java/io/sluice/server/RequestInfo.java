package io.sluice.server;

import io.vertx.core.Future;

/**
 * What a handler knows of the caller besides the parameters.
 *
 * @param clientGone completes if the client closes the connection before it is answered
 */
record RequestInfo(String requestId, String senderId, Future<Void> clientGone) {
}
