package io.vesta.time;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A clock moved by hand, for tests and simulations. {@link #sleepUntil(long)} does not block: it moves the
 * clock forward to the target, as if the time had passed, and counts the sleep and its length.
 */
public final class ManualTimeSource implements TimeSource {

    private final AtomicLong millis;
    private final AtomicLong sleeps = new AtomicLong();
    private final AtomicLong sleptMillis = new AtomicLong();

    public ManualTimeSource(Instant start) {
        this.millis = new AtomicLong(start.toEpochMilli());
    }

    @Override
    public long currentTimeMillis() {
        return millis.get();
    }

    @Override
    public void sleepUntil(long epochMillis) {
        sleeps.incrementAndGet();
        long before = millis.getAndAccumulate(epochMillis, Math::max);
        sleptMillis.addAndGet(Math.max(0, epochMillis - before));
    }

    public Instant now() {
        return Instant.ofEpochMilli(millis.get());
    }

    public void set(Instant instant) {
        millis.set(instant.toEpochMilli());
    }

    /** Moves the clock by {@code amount}; a negative amount steps it back. */
    public void advance(Duration amount) {
        millis.addAndGet(amount.toMillis());
    }

    /** How many times a generator asked to wait. */
    public long sleeps() {
        return sleeps.get();
    }

    /** How far the waits moved the clock, in total. */
    public Duration slept() {
        return Duration.ofMillis(sleptMillis.get());
    }
}
