package io.vesta.time;

/**
 * The generator's clocks. The seam through which tests and simulations move time by hand: a generator never
 * reads the system clock, measures an interval or sleeps except through its {@code TimeSource}.
 *
 * <p>Two clocks, because they fail differently: the wall clock ({@link #currentTimeMillis()}) is what IDs carry,
 * and NTP or an operator may step it back or forward at any moment; the monotonic clock ({@link #nanoTime()})
 * only measures how long something took, and never steps. Every wait of a generator is bounded on the monotonic
 * clock, so a wall clock stepped back during a wait cannot stretch the wait by the size of the step.
 */
public interface TimeSource {

    /** Wall-clock milliseconds since the Unix epoch. */
    long currentTimeMillis();

    /**
     * A monotonic reading in nanoseconds, meaningful only as the difference of two readings: it does not move
     * when the wall clock is stepped. {@link System#nanoTime()} by default.
     */
    default long nanoTime() {
        return System.nanoTime();
    }

    /**
     * Waits until {@link #currentTimeMillis()} has reached {@code epochMillis}, or until {@code maxNanos} have
     * passed on {@link #nanoTime()}, whichever comes first, without burning a core for the bulk of the wait. An
     * interrupt does not cut it short (the wait is bounded already) but the thread's interrupt status is kept.
     *
     * @return whether the wall clock reached {@code epochMillis}; false when the bound ran out first, which
     *         means the wall clock was stepped back during the wait (or, for a bound shorter than the distance,
     *         simply that the bound was shorter)
     */
    boolean sleepUntil(long epochMillis, long maxNanos);

    /** Waits until {@link #currentTimeMillis()} has reached {@code epochMillis}, however long that takes. */
    default void sleepUntil(long epochMillis) {
        while (!sleepUntil(epochMillis, Long.MAX_VALUE)) {
            // the bound is about 292 years: keep waiting
        }
    }

    /** The system clock. */
    static TimeSource system() {
        return SystemTimeSource.INSTANCE;
    }
}
