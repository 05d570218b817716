package io.sluice.cluster;

import io.sluice.queue.PartitionRequest;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.eventbus.ReplyFailure;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Gathers the partition requests one event loop forwards during a turn and sends those for the
 * same owner as one {@link ForwardedBundle}: one event-bus message, one socket write each way and
 * one reply handler for all of them, instead of one of each per request. The first request of a
 * turn schedules the flush behind what the loop is doing (its other sockets' reads), so a lone
 * request waits for nothing but the rest of the turn, and a request alone in its turn travels as
 * it always did, a plain {@link ForwardedRequest}.
 *
 * <p>Used only on the loop that owns it (one per context), so nothing here is shared.
 */
final class ForwardOutbox {
    /**
     * Messages in one bundle at most (a send counts one, a batch its parts): bounds a bundle to
     * a few batches' worth of bodies; under load a loop's turn gathers far fewer.
     */
    static final int MAX_PARTS = 32;

    /** How a request, or a bundle of them, reaches a node. */
    interface Transport {
        Future<ForwardedReply> one(String nodeId, ForwardedRequest request);

        /** Answers a {@link ForwardedReplies}, or one {@link ForwardedReply} meant for every request. */
        Future<Object> bundle(String nodeId, ForwardedBundle bundle);
    }

    /** The requests gathered for one node this turn, and their replies, in the same order. */
    private static final class Gathered {
        final List<ForwardedRequest> requests = new ArrayList<>();
        final List<Promise<ForwardedReply>> replies = new ArrayList<>();
        int parts;
    }

    private final Transport transport;
    private final Consumer<Runnable> later;
    private Map<String, Gathered> byNode = new HashMap<>();
    private boolean flushScheduled;

    /** @param later runs a task on this loop after what it is doing now (its context's runOnContext) */
    ForwardOutbox(Transport transport, Consumer<Runnable> later) {
        this.transport = transport;
        this.later = later;
    }

    /** The owner's reply to the request, once the bundle it travels in is answered. */
    Future<ForwardedReply> add(String nodeId, ForwardedRequest request) {
        Promise<ForwardedReply> reply = Promise.promise();
        Gathered g = byNode.computeIfAbsent(nodeId, n -> new Gathered());
        g.requests.add(request);
        g.replies.add(reply);
        g.parts += parts(request.request());
        if (g.parts >= MAX_PARTS) {
            byNode.remove(nodeId);
            send(nodeId, g);
        } else if (!flushScheduled) {
            flushScheduled = true;
            later.accept(this::flush);
        }
        return reply.future();
    }

    private void flush() {
        flushScheduled = false;
        if (byNode.isEmpty()) {
            return;
        }
        Map<String, Gathered> due = byNode;
        byNode = new HashMap<>();
        due.forEach(this::send);
    }

    private void send(String nodeId, Gathered g) {
        List<Promise<ForwardedReply>> replies = g.replies;
        if (replies.size() == 1) {
            transport.one(nodeId, g.requests.get(0)).onComplete(replies.get(0));
            return;
        }
        transport.bundle(nodeId, new ForwardedBundle(g.requests)).onComplete(ar -> {
            if (ar.failed()) {
                replies.forEach(r -> r.fail(ar.cause()));
            } else if (ar.result() instanceof ForwardedReplies answered
                    && answered.replies().size() == replies.size()) {
                for (int i = 0; i < replies.size(); i++) {
                    replies.get(i).complete(answered.replies().get(i));
                }
            } else if (ar.result() instanceof ForwardedReply one) {
                // The owner answered the bundle as a whole (it could not read it).
                replies.forEach(r -> r.complete(one));
            } else {
                ReplyException wrong = new ReplyException(
                        ReplyFailure.RECIPIENT_FAILURE, "unexpected answer to a bundle: " + ar.result());
                replies.forEach(r -> r.fail(wrong));
            }
        });
    }

    private static int parts(PartitionRequest<?> request) {
        return request instanceof PartitionRequest.Batched<?> b
                ? Math.max(1, b.parts().size())
                : 1;
    }
}
