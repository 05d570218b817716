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

    private record Pending(ForwardedRequest request, Promise<ForwardedReply> reply) {}

    private static final class Gathered {
        final List<Pending> pending = new ArrayList<>();
        int parts;
    }

    private final Transport transport;
    private final Consumer<Runnable> later;
    private final Map<String, Gathered> byNode = new HashMap<>();
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
        g.pending.add(new Pending(request, reply));
        g.parts += parts(request.request());
        if (g.parts >= MAX_PARTS) {
            byNode.remove(nodeId);
            send(nodeId, g.pending);
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
        List<Map.Entry<String, Gathered>> all = new ArrayList<>(byNode.entrySet());
        byNode.clear();
        for (Map.Entry<String, Gathered> e : all) {
            send(e.getKey(), e.getValue().pending);
        }
    }

    private void send(String nodeId, List<Pending> pending) {
        if (pending.size() == 1) {
            Pending p = pending.get(0);
            transport.one(nodeId, p.request()).onComplete(p.reply());
            return;
        }
        List<ForwardedRequest> requests = new ArrayList<>(pending.size());
        for (Pending p : pending) {
            requests.add(p.request());
        }
        transport.bundle(nodeId, new ForwardedBundle(requests)).onComplete(ar -> {
            if (ar.failed()) {
                pending.forEach(p -> p.reply().fail(ar.cause()));
            } else if (ar.result() instanceof ForwardedReplies r && r.replies().size() == pending.size()) {
                for (int i = 0; i < pending.size(); i++) {
                    pending.get(i).reply().complete(r.replies().get(i));
                }
            } else if (ar.result() instanceof ForwardedReply one) {
                // The owner answered the bundle as a whole (it could not read it).
                pending.forEach(p -> p.reply().complete(one));
            } else {
                ReplyException wrong = new ReplyException(
                        ReplyFailure.RECIPIENT_FAILURE, "unexpected answer to a bundle: " + ar.result());
                pending.forEach(p -> p.reply().fail(wrong));
            }
        });
    }

    private static int parts(PartitionRequest<?> request) {
        return request instanceof PartitionRequest.Batched<?> b
                ? Math.max(1, b.parts().size())
                : 1;
    }
}
