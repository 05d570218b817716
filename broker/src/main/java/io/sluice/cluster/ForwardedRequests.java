package io.sluice.cluster;

import io.sluice.partition.PartitionDirectory;
import io.sluice.partition.PartitionMoved;
import io.sluice.queue.ErrorCode;
import io.sluice.queue.SqsException;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.eventbus.Message;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Serves partition requests other nodes forward here. Deployed once per event loop, all on the
 * node's address, so decoding and encoding spread over the loops.
 */
public final class ForwardedRequests extends VerticleBase {
    private static final Logger LOG = Logger.getLogger(ForwardedRequests.class.getName());

    private final PartitionDirectory local;
    private final String nodeId;

    public ForwardedRequests(PartitionDirectory local, String nodeId) {
        this.local = local;
        this.nodeId = nodeId;
    }

    @Override
    public Future<?> start() {
        return vertx.eventBus()
                .<Buffer>consumer(ClusterRouter.address(nodeId), this::serve)
                .completion();
    }

    private void serve(Message<Buffer> msg) {
        WireCodec.Envelope env;
        try {
            env = WireCodec.decodeRequest(msg.body().getBytes());
        } catch (IllegalArgumentException e) {
            LOG.log(Level.WARNING, "undecodable partition request", e);
            msg.reply(Buffer.buffer(
                    WireCodec.encodeError(new SqsException(ErrorCode.INTERNAL_FAILURE, "Undecodable request."))));
            return;
        }
        local.execute(env.queueName(), env.partition(), env.request()).onComplete(ar -> {
            byte[] reply;
            if (ar.succeeded()) {
                reply = WireCodec.encodeResult(ar.result());
            } else if (ar.cause() instanceof PartitionMoved) {
                reply = WireCodec.encodeMoved();
            } else if (ar.cause() instanceof SqsException e) {
                reply = WireCodec.encodeError(e);
            } else {
                LOG.log(Level.WARNING, "partition request failed", ar.cause());
                reply = WireCodec.encodeError(
                        new SqsException(ErrorCode.SERVICE_UNAVAILABLE, "Storage unavailable; try again."));
            }
            msg.reply(Buffer.buffer(reply));
        });
    }
}
