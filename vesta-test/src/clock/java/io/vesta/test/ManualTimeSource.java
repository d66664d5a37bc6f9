package io.vesta.test;

import io.vesta.time.TimeSource;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A clock moved by hand, for tests and simulations: give it to a generator, a provider or a segment service
 * ({@code timeSource(...)} on their builders) and move it with {@link #advance} and {@link #set}.
 * {@link #sleepUntil(long, long)} does not block: it moves the clock forward to the target (or by the bound, if that
 * is shorter), as if the time had passed, and counts the sleep and its length.
 *
 * <p>It keeps a monotonic clock beside the wall clock: time that passes ({@link #advance} forward, a sleep)
 * moves both; a step of the wall clock ({@link #set}, {@link #advance} by a negative amount) moves only the wall
 * clock, as NTP stepping a real clock would.
 */
public final class ManualTimeSource implements TimeSource {

    private final AtomicLong millis;
    private final AtomicLong nanos = new AtomicLong();
    private final AtomicLong sleeps = new AtomicLong();
    private final AtomicLong sleptNanos = new AtomicLong();

    /** A clock reading {@code start} on the wall clock and zero on the monotonic clock. */
    public ManualTimeSource(Instant start) {
        this.millis = new AtomicLong(start.toEpochMilli());
    }

    @Override
    public long currentTimeMillis() {
        return millis.get();
    }

    @Override
    public long nanoTime() {
        return nanos.get();
    }

    @Override
    public boolean sleepUntil(long epochMillis, long maxNanos) {
        sleeps.incrementAndGet();
        for (;;) {
            long before = millis.get();
            if (before >= epochMillis) {
                return true;
            }
            long distance = epochMillis - before;
            long distanceNanos = distance > Long.MAX_VALUE / 1_000_000 ? Long.MAX_VALUE : distance * 1_000_000;
            long passed = Math.min(distanceNanos, Math.max(0, maxNanos));
            // Threads sleeping at once share the time that passes, as on a real clock: one moves it, the
            // others find it moved.
            if (millis.compareAndSet(before, before + passed / 1_000_000)) {
                nanos.addAndGet(passed);
                sleptNanos.addAndGet(passed);
                return passed == distanceNanos;
            }
        }
    }

    /** The wall clock's reading. */
    public Instant now() {
        return Instant.ofEpochMilli(millis.get());
    }

    /** Steps the wall clock to {@code instant}; the monotonic clock does not move. */
    public void set(Instant instant) {
        millis.set(instant.toEpochMilli());
    }

    /**
     * Moves the clock by {@code amount}: forward, time passes (both clocks move); a negative amount steps the wall
     * clock back and leaves the monotonic clock where it is.
     */
    public void advance(Duration amount) {
        millis.addAndGet(amount.toMillis());
        if (!amount.isNegative()) {
            nanos.addAndGet(amount.toNanos());
        }
    }

    /** How many times a generator asked to wait. */
    public long sleeps() {
        return sleeps.get();
    }

    /** How far the waits moved the clock, in total. */
    public Duration slept() {
        return Duration.ofNanos(sleptNanos.get());
    }
}
