package io.sluice.cluster;

import io.sluice.partition.PartitionDirectory;
import io.sluice.partition.PartitionMoved;
import io.sluice.queue.ErrorCode;
import io.sluice.queue.SqsException;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
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
                .consumer(ClusterRouter.address(nodeId), this::serve)
                .completion();
    }

    private void serve(Message<Object> msg) {
        Object body;
        try {
            body = msg.body();
        } catch (RuntimeException e) {
            body = e;
        }
        if (!(body instanceof ForwardedRequest forwarded)) {
            LOG.warning("undecodable partition request: " + body);
            msg.reply(ForwardedReply.error(new SqsException(ErrorCode.INTERNAL_FAILURE, "Undecodable request.")));
            return;
        }
        local.execute(forwarded.queueName(), forwarded.partition(), forwarded.request())
                .onComplete(ar -> {
                    ForwardedReply reply;
                    if (ar.succeeded()) {
                        reply = ForwardedReply.result(ar.result());
                    } else if (ar.cause() instanceof PartitionMoved) {
                        reply = ForwardedReply.moved();
                    } else if (ar.cause() instanceof SqsException e) {
                        reply = ForwardedReply.error(e);
                    } else {
                        LOG.log(Level.WARNING, "partition request failed", ar.cause());
                        reply = ForwardedReply.error(
                                new SqsException(ErrorCode.SERVICE_UNAVAILABLE, "Storage unavailable; try again."));
                    }
                    msg.reply(reply);
                });
    }
}
