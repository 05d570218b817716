package io.sluice.queue;

/**
 * The in-flight quota of a queue (SQS: about 120 000 for standard queues). When it is reached a
 * short poll gets OverLimit, while a long poll gets no error and no new message.
 */
public final class InFlightQuota {
    private InFlightQuota() {}

    /**
     * How many more messages this receive may put in flight.
     *
     * @throws SqsException OverLimit for a short poll when the quota is used up
     */
    public static int allowance(long inFlight, long limit, int wanted, boolean shortPoll) {
        long left = limit - inFlight;
        if (left <= 0) {
            if (shortPoll) {
                throw new SqsException(ErrorCode.OVER_LIMIT, "The maximum number of in flight messages is reached");
            }
            return 0;
        }
        return (int) Math.min(wanted, left);
    }
}
