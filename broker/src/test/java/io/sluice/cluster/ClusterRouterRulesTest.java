package io.sluice.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.sluice.cluster.ClusterRouter.Next;
import io.sluice.partition.PartitionMoved;
import io.sluice.queue.ErrorCode;
import io.sluice.queue.SqsException;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.eventbus.ReplyFailure;
import org.junit.jupiter.api.Test;

/**
 * The router's rule for a failed attempt, on its own: what is retried (the partition moved, or
 * its owner did not answer), what goes to the client as it is (the request's own error), and
 * when retrying stops (attempts or time used up) with a retryable error for the client.
 */
class ClusterRouterRulesTest {
    private static final long START = 1_000_000;
    private static final long DEADLINE = START + ClusterRouter.RETRY_BUDGET_MILLIS;

    private static Next first(Throwable err) {
        return ClusterRouter.afterFailure(err, 1, START, DEADLINE);
    }

    @Test
    void aMovedPartitionIsLookedUpAgain() {
        assertEquals(Next.RETRY, first(new PartitionMoved("q", 3)));
    }

    @Test
    void anOwnerThatDidNotAnswerIsLookedUpAgain() {
        // Timed out (gone or frozen), no handler on its address (left, or not serving yet), or failed to reply.
        for (ReplyFailure kind : ReplyFailure.values()) {
            assertEquals(Next.RETRY, first(new ReplyException(kind, "x")), kind.name());
        }
    }

    @Test
    void theRequestsOwnErrorGoesToTheClientAtOnce() {
        assertEquals(Next.FAIL, first(SqsException.invalidParameter("bad receipt handle")));
        assertEquals(Next.FAIL, first(new SqsException(ErrorCode.QUEUE_DOES_NOT_EXIST, "gone")));
        // Storage refusing a commit answers ServiceUnavailable itself: retried by the client, not here,
        // since the change may have been applied.
        assertEquals(Next.FAIL, first(new SqsException(ErrorCode.SERVICE_UNAVAILABLE, "could not replicate")));
        assertEquals(Next.FAIL, first(new IllegalStateException("a bug")));
    }

    @Test
    void retryingStopsAfterTheLastAttempt() {
        PartitionMoved moved = new PartitionMoved("q", 0);
        assertEquals(Next.RETRY, ClusterRouter.afterFailure(moved, ClusterRouter.MAX_ATTEMPTS - 1, START, DEADLINE));
        assertEquals(Next.GIVE_UP, ClusterRouter.afterFailure(moved, ClusterRouter.MAX_ATTEMPTS, START, DEADLINE));
    }

    @Test
    void retryingStopsWhenTheTimeBudgetIsSpent() {
        PartitionMoved moved = new PartitionMoved("q", 0);
        assertEquals(Next.RETRY, ClusterRouter.afterFailure(moved, 2, DEADLINE, DEADLINE));
        assertEquals(Next.GIVE_UP, ClusterRouter.afterFailure(moved, 2, DEADLINE + 1, DEADLINE));
    }

    @Test
    void aRequestsOwnErrorIsNotTurnedIntoServiceUnavailableEvenWhenRetriesAreSpent() {
        assertEquals(
                Next.FAIL,
                ClusterRouter.afterFailure(
                        SqsException.invalidParameter("x"), ClusterRouter.MAX_ATTEMPTS, DEADLINE + 1, DEADLINE));
    }
}
