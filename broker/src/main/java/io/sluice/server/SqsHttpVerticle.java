package io.sluice.server;

import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.netty.handler.codec.http.TooLongHttpLineException;
import io.sluice.config.AccessKey;
import io.sluice.config.HttpLimits;
import io.sluice.protocol.EncodedResponse;
import io.sluice.protocol.RequestDecoder;
import io.sluice.protocol.ResponseEncoder;
import io.sluice.protocol.SigV4;
import io.sluice.protocol.SqsAction;
import io.sluice.protocol.SqsRequest;
import io.sluice.protocol.WireProtocol;
import io.sluice.queue.ErrorCode;
import io.sluice.queue.Ids;
import io.sluice.queue.SqsException;
import io.sluice.queue.UnknownQueueException;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.VerticleBase;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.json.JsonObject;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The stateless SQS endpoint; one instance per event loop. It bounds and reads the body,
 * decodes it, runs the action and encodes the answer in the protocol the request used.
 */
final class SqsHttpVerticle extends VerticleBase {
    private static final Logger LOG = Logger.getLogger(SqsHttpVerticle.class.getName());

    /** Past this much of an oversized body the connection is cut instead of drained. */
    private static final long DRAIN_LIMIT_BYTES = 64L * 1024 * 1024;

    private final Broker broker;
    private final Health health;
    private final ConnectionLimit connections;
    private Actions actions;
    /** Null when no access keys are configured: authentication is off. */
    private SigV4 signatures;

    SqsHttpVerticle(Broker broker, Health health, ConnectionLimit connections) {
        this.broker = broker;
        this.health = health;
        this.connections = connections;
    }

    @Override
    public Future<?> start() {
        actions = new Actions(broker, vertx);
        if (broker.config.authenticates()) {
            Map<String, SigV4.Key> keys = new HashMap<>();
            for (AccessKey k : broker.config.credentials()) {
                keys.put(k.id(), new SigV4.Key(k.id(), k.secret(), k.accountId()));
            }
            signatures = new SigV4(keys::get, broker.clock::millis);
        }
        HttpLimits limits = broker.config.http();
        HttpServerOptions options = new HttpServerOptions()
                .setHost(broker.config.host())
                .setPort(broker.config.port())
                .setCompressionSupported(false)
                .setMaxHeaderSize(limits.maxHeaderBytes())
                .setMaxInitialLineLength(limits.maxInitialLineBytes())
                .setIdleTimeout(limits.idleTimeoutSeconds())
                .setIdleTimeoutUnit(TimeUnit.SECONDS)
                // Clients that announce a body with "Expect: 100-continue" (curl, .NET) are told to send it.
                .setHandle100ContinueAutomatically(true)
                // No SQS client speaks HTTP/2 in clear text: one protocol less to be attacked through.
                .setHttp2ClearTextEnabled(false)
                // Nor WebSocket: without compression support, Netty's extension handler is not in
                // every connection's pipeline (it looked at every response written: 5 % of a FIFO
                // run's CPU in a profile).
                .setPerFrameWebSocketCompressionSupported(false)
                .setPerMessageWebSocketCompressionSupported(false);
        HttpServer server = vertx.createHttpServer(options)
                .connectionHandler(connections::admit)
                .invalidRequestHandler(this::invalid)
                // SQS has no WebSocket endpoint. Having a handshake handler also makes Vert.x hand
                // requests of an HTTP version it does not speak (HTTP/0.9, HTTP/1.2) to handle(),
                // which refuses them as SQS errors, instead of answering them a bare 501 itself.
                .webSocketHandshakeHandler(handshake -> handshake.reject(400))
                .requestHandler(this::handle);
        return server.listen();
    }

    /**
     * A request the HTTP decoder could not read (a head over the limits, a garbled request line or
     * header, a bad Content-Length): an SQS error in the protocol its headers name, as far as they
     * could be read, and the connection closed, since what follows on it cannot be trusted.
     */
    private void invalid(HttpServerRequest req) {
        Throwable cause = req.decoderResult().cause();
        ErrorCode code;
        String message;
        if (cause instanceof TooLongHttpLineException) {
            code = ErrorCode.REQUEST_URI_TOO_LONG;
            message = "The request line is longer than " + broker.config.http().maxInitialLineBytes() + " bytes.";
        } else if (cause instanceof TooLongHttpHeaderException) {
            code = ErrorCode.REQUEST_HEADER_TOO_LARGE;
            message = "The request headers are larger than "
                    + broker.config.http().maxHeaderBytes() + " bytes.";
        } else {
            code = ErrorCode.MALFORMED_HTTP_REQUEST;
            message = "The request is not valid HTTP/1.1 and could not be read.";
        }
        refuse(req, code, message);
    }

    /** Answers a request that cannot be served at all with an SQS error, and closes its connection. */
    private static void refuse(HttpServerRequest req, ErrorCode code, String message) {
        WireProtocol protocol = RequestDecoder.protocolOf(req.getHeader("X-Amz-Target"));
        send(
                req.response().putHeader("Connection", "close"),
                ResponseEncoder.error(protocol, code, message, Ids.newId()));
        req.connection().close();
    }

    private void handle(HttpServerRequest req) {
        if (req.version() == null) {
            refuse(req, ErrorCode.MALFORMED_HTTP_REQUEST, "The request's HTTP version is not supported: use HTTP/1.1.");
            return;
        }
        if (req.method() == HttpMethod.GET && req.path().equals("/metrics")) {
            req.response()
                    .putHeader("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
                    .end(broker.metrics.scrape());
            return;
        }
        if (req.method() == HttpMethod.GET && Health.isProbe(req.path())) {
            health.respond(req);
            return;
        }
        WireProtocol protocol = RequestDecoder.protocolOf(req.getHeader("X-Amz-Target"));
        String requestId = Ids.newId();
        int max = broker.config.maxRequestBytes();
        long declared = parseLength(req.getHeader("Content-Length"));
        SigV4.Pending signature = null;
        if (signatures != null) {
            // What the headers alone decide is refused before the body is read.
            try {
                signature = signatures.precheck(new SigV4.Request(
                        req.method().name(),
                        req.path(),
                        req.query(),
                        name -> req.headers().getAll(name)));
            } catch (SqsException e) {
                rejectBeforeBody(req, ResponseEncoder.error(protocol, e.code(), e.getMessage(), requestId), declared);
                return;
            }
        }
        if (declared > max) {
            rejectBeforeBody(req, tooLarge(protocol, requestId, max), declared);
            return;
        }
        SigV4.Pending signed = signature;
        RequestBody body = new RequestBody(declared);
        boolean[] rejected = {false};
        req.handler(chunk -> {
            if (rejected[0]) {
                return;
            }
            if (body.length() + chunk.length() > max) {
                rejected[0] = true;
                rejectBeforeBody(req, tooLarge(protocol, requestId, max), -1);
                return;
            }
            body.add(chunk);
        });
        req.endHandler(v -> {
            if (!rejected[0]) {
                process(req, protocol, requestId, body.get(), signed);
            }
        });
        req.exceptionHandler(err -> LOG.log(Level.FINE, "request failed while reading", err));
    }

    private void process(
            HttpServerRequest req, WireProtocol protocol, String requestId, Buffer body, SigV4.Pending signature) {
        long began = System.nanoTime();
        Future<EncodedResponse> response;
        SqsRequest sqs = null;
        try {
            SigV4.Key key = signature != null ? signatures.verify(signature, body.getBytes()) : null;
            String sender = key != null ? key.accessKeyId() : senderOf(req);
            String account = key != null ? key.accountId() : broker.urls.accountId();
            sqs = RequestDecoder.decode(
                    req.path(), req.query(), req.getHeader("Content-Type"), req.getHeader("X-Amz-Target"), body);
            Promise<Void> clientGone = Promise.promise();
            req.response().closeHandler(v -> clientGone.tryComplete());
            RequestInfo info = new RequestInfo(requestId, sender, account, sqs.action(), clientGone.future());
            SqsRequest decoded = sqs;
            // One step from the action's result to the answer (one lambda, as the map before), the catch-up only
            // after a failure.
            response = run(decoded, info)
                    .transform(ar -> ar.succeeded()
                            ? Future.succeededFuture(success(decoded, ar.result(), requestId))
                            : afterFailure(decoded, info, ar.cause())
                                    .map(result -> success(decoded, result, requestId)));
        } catch (RuntimeException e) {
            response = Future.failedFuture(e);
        }
        WireProtocol p = sqs != null ? sqs.protocol() : protocol;
        SqsAction action = sqs != null ? sqs.action() : null;
        response.onComplete(ar -> {
            EncodedResponse r = ar.succeeded() ? ar.result() : errorResponse(p, ar.cause(), requestId);
            broker.metrics.request(action, r.status(), System.nanoTime() - began);
            send(req.response(), r);
        });
    }

    /**
     * After an action failed: should it have been refused for naming a queue that another node
     * created a moment ago and this node has not heard of yet ({@link UnknownQueueException}), it
     * runs once more when the news arrives. Such a request failed before it touched anything:
     * finding the queues it names is every action's first step. Any other failure stands.
     */
    private Future<JsonObject> afterFailure(SqsRequest sqs, RequestInfo info, Throwable err) {
        if (!(Broker.unwrap(err) instanceof UnknownQueueException unknown)) {
            return Future.failedFuture(err);
        }
        return broker.caughtUpWith(unknown.queueName())
                .compose(caughtUp -> caughtUp ? run(sqs, info) : Future.failedFuture(err));
    }

    private static EncodedResponse success(SqsRequest sqs, JsonObject result, String requestId) {
        return ResponseEncoder.success(sqs.protocol(), sqs.action(), result, requestId);
    }

    private Future<JsonObject> run(SqsRequest sqs, RequestInfo info) {
        try {
            return actions.get(sqs.action()).handle(sqs.params(), info);
        } catch (RuntimeException e) {
            return Future.failedFuture(e);
        }
    }

    private static EncodedResponse errorResponse(WireProtocol protocol, Throwable failure, String requestId) {
        SqsException known = Broker.asSqsError(failure);
        if (known != null) {
            return ResponseEncoder.error(protocol, known.code(), known.getMessage(), requestId);
        }
        LOG.log(Level.WARNING, "request " + requestId + " failed", failure);
        return ResponseEncoder.error(
                protocol, ErrorCode.INTERNAL_FAILURE, "We encountered an internal error. Please try again.", requestId);
    }

    /**
     * A request's body as its chunks arrive. Vert.x hands each chunk over as a heap copy of its
     * own, so a body of one chunk (most SQS requests) is kept as it came; a longer one is gathered
     * into a buffer sized by its Content-Length, without regrowing.
     */
    private static final class RequestBody {
        private final long declared;
        private Buffer buffer;
        private boolean gathering;

        RequestBody(long declared) {
            this.declared = declared;
        }

        int length() {
            return buffer == null ? 0 : buffer.length();
        }

        void add(Buffer chunk) {
            if (buffer == null) {
                buffer = chunk;
                return;
            }
            if (!gathering) {
                int size = buffer.length() + chunk.length();
                Buffer gathered = Buffer.buffer((int) Math.max(size, declared));
                gathered.appendBuffer(buffer);
                buffer = gathered;
                gathering = true;
            }
            buffer.appendBuffer(chunk);
        }

        Buffer get() {
            return buffer == null ? Buffer.buffer() : buffer;
        }
    }

    private static EncodedResponse tooLarge(WireProtocol protocol, String requestId, int max) {
        return ResponseEncoder.error(
                protocol, ErrorCode.REQUEST_TOO_LARGE, "Request body larger than " + max + " bytes.", requestId);
    }

    /**
     * Answers a request without buffering its body (too large, or refused on its headers). The
     * rest of the body is read and dropped (so the client sees the answer rather than a reset)
     * unless it is absurdly large, and the connection is closed afterwards.
     */
    private void rejectBeforeBody(HttpServerRequest req, EncodedResponse r, long declared) {
        HttpServerResponse response = req.response().putHeader("Connection", "close");
        send(response, r);
        if (declared > DRAIN_LIMIT_BYTES) {
            req.connection().close();
            return;
        }
        long[] drained = {0};
        req.handler(chunk -> {
            drained[0] += chunk.length();
            if (drained[0] > DRAIN_LIMIT_BYTES) {
                req.connection().close();
            }
        });
        req.endHandler(v -> req.connection().close());
    }

    private static void send(HttpServerResponse response, EncodedResponse r) {
        if (response.ended() || response.closed()) {
            return;
        }
        response.setStatusCode(r.status()).putHeader("Content-Type", r.contentType());
        for (Map.Entry<String, String> h : r.headers().entrySet()) {
            response.putHeader(h.getKey(), h.getValue());
        }
        response.end(r.body());
    }

    private static long parseLength(String value) {
        if (value == null) {
            return -1;
        }
        try {
            return Long.parseLong(value.trim());
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    /** SQS reports the caller as SenderId; the access key of a SigV4 signature stands in for it. */
    private String senderOf(HttpServerRequest req) {
        String auth = req.getHeader("Authorization");
        if (auth != null) {
            int at = auth.indexOf("Credential=");
            if (at >= 0) {
                int start = at + "Credential=".length();
                int end = auth.indexOf('/', start);
                if (end > start) {
                    return auth.substring(start, end);
                }
            }
        }
        return broker.urls.accountId();
    }
}
