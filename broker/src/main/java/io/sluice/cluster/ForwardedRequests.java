package io.sluice.cluster;

import io.sluice.partition.PartitionCall;
import io.sluice.partition.PartitionDirectory;
import io.sluice.partition.PartitionMoved;
import io.sluice.queue.ErrorCode;
import io.sluice.queue.PartitionKey;
import io.sluice.queue.SqsException;
import io.vertx.core.AsyncResult;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.eventbus.Message;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Serves partition requests other nodes forward here, one at a time or in a bundle (its requests
 * for one partition run together, and it is answered once each has run). Deployed once per event
 * loop, all on the node's address, so decoding and encoding spread over the loops.
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
        if (body instanceof ForwardedRequest forwarded) {
            execute(forwarded).onComplete(ar -> msg.reply(replyTo(ar)));
        } else if (body instanceof ForwardedBundle bundle) {
            serve(bundle, msg);
        } else {
            LOG.warning("undecodable partition request: " + body);
            msg.reply(ForwardedReply.error(new SqsException(ErrorCode.INTERNAL_FAILURE, "Undecodable request.")));
        }
    }

    /**
     * Runs the bundle's requests, those for one partition together in one task on its loop (in the
     * bundle's order), and answers once the last has run. Every call completes on this verticle's
     * context (the directory answers where its caller runs), so a plain count will do.
     */
    private void serve(ForwardedBundle bundle, Message<Object> msg) {
        List<ForwardedRequest> requests = bundle.requests();
        ForwardedReply[] replies = new ForwardedReply[requests.size()];
        if (replies.length == 0) {
            msg.reply(new ForwardedReplies(List.of()));
            return;
        }
        int[] left = {replies.length};
        Map<PartitionKey, List<PartitionCall<?>>> byPartition = new LinkedHashMap<>();
        for (int i = 0; i < replies.length; i++) {
            ForwardedRequest forwarded = requests.get(i);
            PartitionCall<?> call = new PartitionCall<>(forwarded.request());
            int at = i;
            call.future().onComplete(ar -> {
                replies[at] = replyTo(ar);
                if (--left[0] == 0) {
                    msg.reply(new ForwardedReplies(Arrays.asList(replies)));
                }
            });
            byPartition
                    .computeIfAbsent(
                            new PartitionKey(forwarded.queueName(), forwarded.partition()), k -> new ArrayList<>())
                    .add(call);
        }
        byPartition.forEach((key, calls) -> local.executeAll(key.queue(), key.index(), calls));
    }

    private Future<?> execute(ForwardedRequest forwarded) {
        return local.execute(forwarded.queueName(), forwarded.partition(), forwarded.request());
    }

    private static ForwardedReply replyTo(AsyncResult<?> ar) {
        if (ar.succeeded()) {
            return ForwardedReply.result(ar.result());
        }
        if (ar.cause() instanceof PartitionMoved) {
            return ForwardedReply.moved();
        }
        if (ar.cause() instanceof SqsException e) {
            return ForwardedReply.error(e);
        }
        LOG.log(Level.WARNING, "partition request failed", ar.cause());
        return ForwardedReply.error(new SqsException(ErrorCode.SERVICE_UNAVAILABLE, "Storage unavailable; try again."));
    }
}
