package io.sluice.queue;

/**
 * Paces a message move task to its MaxNumberOfMessagesPerSecond: a token bucket that fills at
 * the rate and holds at most one second's worth, so a task that waited does not burst.
 */
public final class MovePacer {
    private final Clock clock;
    private final int perSecond;
    private double tokens;
    private long last;

    public MovePacer(Clock clock, int perSecond) {
        if (perSecond < 1) {
            throw new IllegalArgumentException("rate must be positive");
        }
        this.clock = clock;
        this.perSecond = perSecond;
        this.last = clock.millis();
        this.tokens = 1;
    }

    /** Takes up to {@code wanted} permits available now. */
    public int take(int wanted) {
        refill();
        int granted = (int) Math.min(wanted, Math.floor(tokens));
        tokens -= granted;
        return granted;
    }

    /** How long until at least one permit is available. */
    public long millisUntilNext() {
        refill();
        if (tokens >= 1) {
            return 0;
        }
        return (long) Math.ceil((1 - tokens) * 1000.0 / perSecond);
    }

    private void refill() {
        long now = clock.millis();
        tokens = Math.min(perSecond, tokens + (now - last) * perSecond / 1000.0);
        last = now;
    }
}
