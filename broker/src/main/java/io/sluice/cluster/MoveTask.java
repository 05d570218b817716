package io.sluice.cluster;

/**
 * One message move task as the cluster keeps it (in {@link MoveTaskStore}): what it moves, how
 * far it got, and which run of which node drives it now.
 *
 * @param handle           the TaskHandle clients use
 * @param destinationArn   null: each message goes back to the queue it was dead-lettered from
 * @param rate             MaxNumberOfMessagesPerSecond as requested, null when not given
 * @param startedTimestamp epoch milliseconds of the start
 * @param toMove           ApproximateNumberOfMessagesToMove, counted at the start
 * @param moved            ApproximateNumberOfMessagesMoved: added after each batch, before its originals are deleted
 * @param failureReason    why a FAILED task failed, null otherwise
 * @param runId            the run driving the task now (a node's claim on it), null before the first
 * @param claimsUntil      messages claimed by any earlier run are back in the source or gone by then
 */
public record MoveTask(
        String handle,
        String sourceArn,
        String destinationArn,
        Integer rate,
        long startedTimestamp,
        long toMove,
        long moved,
        Status status,
        String failureReason,
        String runId,
        long claimsUntil) {

    /** The statuses SQS reports; a task is active (counts as the source's one task) while RUNNING or CANCELLING. */
    public enum Status {
        RUNNING,
        COMPLETED,
        CANCELLING,
        CANCELLED,
        FAILED;

        public boolean active() {
            return this == RUNNING || this == CANCELLING;
        }
    }

    /** A task just started: RUNNING, nothing moved, no run yet. */
    public static MoveTask started(
            String handle, String sourceArn, String destinationArn, Integer rate, long startedTimestamp, long toMove) {
        return new MoveTask(
                handle, sourceArn, destinationArn, rate, startedTimestamp, toMove, 0, Status.RUNNING, null, null, 0);
    }

    MoveTask withStatus(Status s, String reason) {
        return new MoveTask(
                handle,
                sourceArn,
                destinationArn,
                rate,
                startedTimestamp,
                toMove,
                moved,
                s,
                reason,
                runId,
                claimsUntil);
    }

    MoveTask withRun(String run) {
        return new MoveTask(
                handle,
                sourceArn,
                destinationArn,
                rate,
                startedTimestamp,
                toMove,
                moved,
                status,
                failureReason,
                run,
                claimsUntil);
    }

    MoveTask withProgress(long addMoved, long claimedUntil) {
        return new MoveTask(
                handle,
                sourceArn,
                destinationArn,
                rate,
                startedTimestamp,
                toMove,
                moved + addMoved,
                status,
                failureReason,
                runId,
                Math.max(claimsUntil, claimedUntil));
    }
}
