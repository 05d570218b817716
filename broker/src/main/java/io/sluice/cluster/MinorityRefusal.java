package io.sluice.cluster;

import com.hazelcast.splitbrainprotection.SplitBrainProtectionException;
import io.sluice.queue.ErrorCode;
import io.sluice.queue.SqsException;
import java.util.concurrent.CompletionException;

/**
 * What a client is told when Hazelcast's split-brain protection refuses a read or write because
 * this node sees fewer members than a majority: SQS's retryable ServiceUnavailable (503), not an
 * internal error, and nothing logged per request.
 */
final class MinorityRefusal {
    private MinorityRefusal() {}

    /**
     * @param err a failure of a Hazelcast call, bare or wrapped as a stage wraps it
     * @param refused what the node cannot do, as the client reads it ("read or write messages")
     * @return the ServiceUnavailable error for a refusal of the split-brain protection; else {@code err}
     */
    static Throwable translated(Throwable err, String refused) {
        Throwable cause = err instanceof CompletionException && err.getCause() != null ? err.getCause() : err;
        return cause instanceof SplitBrainProtectionException ? unavailable(refused) : err;
    }

    /** @param refused what the node cannot do, as the client reads it ("change its queues") */
    static SqsException unavailable(String refused) {
        return new SqsException(
                ErrorCode.SERVICE_UNAVAILABLE,
                "This node reaches too few of its cluster's nodes to " + refused + "; try another node.");
    }
}
