package io.sluice.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.queue.PartitionRequest;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.eventbus.ReplyFailure;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * How a loop's forwarded requests leave it: together per owner at the end of the turn, alone when
 * alone, at once when a bundle is full; and how each request learns its own answer. A recording
 * transport and a hand-run "later" stand in for the event bus and the loop.
 */
class ForwardOutboxTest {
    /** What was sent: the node, and the requests (one for a plain request). */
    private record Sent(String nodeId, List<ForwardedRequest> requests, boolean bundled, Promise<Object> answer) {}

    private final List<Sent> sent = new ArrayList<>();
    private final List<Runnable> later = new ArrayList<>();

    private final ForwardOutbox.Transport transport = new ForwardOutbox.Transport() {
        @Override
        public Future<ForwardedReply> one(String nodeId, ForwardedRequest request) {
            Promise<Object> answer = Promise.promise();
            sent.add(new Sent(nodeId, List.of(request), false, answer));
            return answer.future().map(ForwardedReply.class::cast);
        }

        @Override
        public Future<Object> bundle(String nodeId, ForwardedBundle bundle) {
            Promise<Object> answer = Promise.promise();
            sent.add(new Sent(nodeId, bundle.requests(), true, answer));
            return answer.future();
        }
    };

    private final ForwardOutbox outbox = new ForwardOutbox(transport, later::add);

    private static ForwardedRequest delete(int n) {
        return new ForwardedRequest("q", 0, new PartitionRequest.Delete("m-" + n, n));
    }

    /** Runs what the loop would run after the current turn. */
    private void endTurn() {
        List<Runnable> due = new ArrayList<>(later);
        later.clear();
        due.forEach(Runnable::run);
    }

    @Test
    void requestsOfOneTurnForOneOwnerTravelInOneBundleAndEachGetsItsOwnReply() {
        List<Future<ForwardedReply>> replies = IntStream.range(0, 3)
                .mapToObj(i -> outbox.add("node-b", delete(i)))
                .toList();
        assertTrue(sent.isEmpty(), "nothing leaves before the turn ends");
        endTurn();
        assertEquals(1, sent.size());
        Sent bundle = sent.get(0);
        assertTrue(bundle.bundled());
        assertEquals(
                List.of(delete(0).toString(), delete(1).toString(), delete(2).toString()),
                bundle.requests().stream().map(Object::toString).toList());
        ForwardedReply moved = ForwardedReply.moved();
        ForwardedReply first = ForwardedReply.result(true);
        ForwardedReply third = ForwardedReply.result(false);
        bundle.answer().complete(new ForwardedReplies(List.of(first, moved, third)));
        assertSame(first, replies.get(0).result());
        assertSame(moved, replies.get(1).result());
        assertSame(third, replies.get(2).result());
    }

    @Test
    void aRequestAloneInItsTurnTravelsAsAPlainRequest() {
        Future<ForwardedReply> reply = outbox.add("node-b", delete(1));
        endTurn();
        assertEquals(1, sent.size());
        assertFalse(sent.get(0).bundled());
        ForwardedReply answer = ForwardedReply.result(true);
        sent.get(0).answer().complete(answer);
        assertSame(answer, reply.result());
    }

    @Test
    void eachOwnerGetsItsOwnBundleAndTheNextTurnStartsAfresh() {
        outbox.add("node-b", delete(1));
        outbox.add("node-c", delete(2));
        outbox.add("node-b", delete(3));
        assertEquals(1, later.size(), "one flush per turn");
        endTurn();
        assertEquals(
                List.of("node-b", "node-c"),
                sent.stream().map(Sent::nodeId).sorted().toList());
        Sent toB = sent.stream()
                .filter(s -> s.nodeId().equals("node-b"))
                .findFirst()
                .orElseThrow();
        assertEquals(2, toB.requests().size());

        outbox.add("node-b", delete(4));
        assertEquals(1, later.size(), "the next turn schedules its own flush");
        endTurn();
        assertEquals(3, sent.size());
    }

    @Test
    void aFullBundleLeavesAtOnce() {
        for (int i = 0; i < ForwardOutbox.MAX_PARTS; i++) {
            outbox.add("node-b", delete(i));
        }
        assertEquals(1, sent.size(), "sent without waiting for the turn's end");
        assertEquals(ForwardOutbox.MAX_PARTS, sent.get(0).requests().size());
        outbox.add("node-b", delete(99));
        endTurn();
        assertEquals(2, sent.size());
        assertFalse(sent.get(1).bundled());
    }

    @Test
    void aBatchCountsItsParts() {
        List<PartitionRequest.Delete> parts = IntStream.range(0, 10)
                .mapToObj(i -> new PartitionRequest.Delete("m-" + i, i))
                .toList();
        ForwardedRequest batch = new ForwardedRequest("q", 1, new PartitionRequest.DeleteBatch(parts));
        outbox.add("node-b", batch);
        outbox.add("node-b", batch);
        outbox.add("node-b", batch);
        assertTrue(sent.isEmpty());
        outbox.add("node-b", batch);
        assertEquals(1, sent.size(), "40 parts fill a bundle");
    }

    @Test
    void aFailedBundleFailsEveryRequestInIt() {
        Future<ForwardedReply> a = outbox.add("node-b", delete(1));
        Future<ForwardedReply> b = outbox.add("node-b", delete(2));
        endTurn();
        ReplyException timeout = new ReplyException(ReplyFailure.TIMEOUT, "no answer");
        sent.get(0).answer().fail(timeout);
        assertSame(timeout, a.cause());
        assertSame(timeout, b.cause());
    }

    @Test
    void oneReplyToTheWholeBundleAnswersEachRequest() {
        Future<ForwardedReply> a = outbox.add("node-b", delete(1));
        Future<ForwardedReply> b = outbox.add("node-b", delete(2));
        endTurn();
        ForwardedReply refused = ForwardedReply.moved();
        sent.get(0).answer().complete(refused);
        assertSame(refused, a.result());
        assertSame(refused, b.result());
    }

    @Test
    void repliesThatDoNotMatchTheBundleFailEachRequestAsRetryable() {
        Future<ForwardedReply> a = outbox.add("node-b", delete(1));
        Future<ForwardedReply> b = outbox.add("node-b", delete(2));
        endTurn();
        sent.get(0).answer().complete(new ForwardedReplies(List.of(ForwardedReply.result(true))));
        assertInstanceOf(ReplyException.class, a.cause());
        assertInstanceOf(ReplyException.class, b.cause());
    }
}
