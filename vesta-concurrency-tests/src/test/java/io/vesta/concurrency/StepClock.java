package io.vesta.concurrency;

import io.vesta.time.TimeSource;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The one clock of a scenario, read by the providers and by the store alike and moved only by the scenario's threads:
 * a step is an atomic write, so the scheduler may put it between any two reads of the engine.
 */
final class StepClock implements TimeSource {

    private final AtomicLong millis;

    StepClock(long startMillis) {
        this.millis = new AtomicLong(startMillis);
    }

    @Override
    public long currentTimeMillis() {
        return millis.get();
    }

    /** Never blocks: the engine does not sleep on its clock, and a scenario moves time with {@link #advance}. */
    @Override
    public boolean sleepUntil(long epochMillis, long maxNanos) {
        return millis.get() >= epochMillis;
    }

    void advance(long deltaMillis) {
        millis.addAndGet(deltaMillis);
    }
}
