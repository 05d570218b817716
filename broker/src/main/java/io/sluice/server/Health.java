package io.sluice.server;

import io.vertx.core.http.HttpServerRequest;

/** GET /health: 200 once the node serves requests, 503 while it starts or stops. */
final class Health {
    private volatile boolean ready;

    void ready(boolean value) {
        ready = value;
    }

    void respond(HttpServerRequest req) {
        req.response()
                .setStatusCode(ready ? 200 : 503)
                .putHeader("Content-Type", "application/json")
                .end(ready ? "{\"status\":\"UP\"}" : "{\"status\":\"DOWN\"}");
    }
}
