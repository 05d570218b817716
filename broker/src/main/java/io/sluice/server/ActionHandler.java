package io.sluice.server;

import io.sluice.protocol.Params;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;

/** One SQS action: parameters in (JSON-protocol shape), result out (JSON-protocol shape). */
@FunctionalInterface
interface ActionHandler {
    Future<JsonObject> handle(Params params, RequestInfo info);
}
