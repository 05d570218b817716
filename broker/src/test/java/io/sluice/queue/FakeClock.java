package io.sluice.queue;

/** A clock the test moves by hand. */
final class FakeClock implements Clock {
    private long now = 1_700_000_000_000L;

    @Override
    public long millis() {
        return now;
    }

    void advanceSeconds(double seconds) {
        now += (long) (seconds * 1000);
    }

    void advanceMillis(long millis) {
        now += millis;
    }
}
