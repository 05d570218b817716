package io.sluice.queue;

/**
 * The time source of all queue semantics. Injected so that visibility, delay, retention and
 * the purge and deletion windows can be tested with a fake clock instead of sleeping.
 */
@FunctionalInterface
public interface Clock {
    Clock SYSTEM = System::currentTimeMillis;

    /** Milliseconds since the epoch. */
    long millis();
}
