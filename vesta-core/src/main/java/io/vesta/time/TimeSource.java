package io.vesta.time;

/**
 * The generator's clock. The seam through which tests and simulations move time by hand: a generator never
 * reads the system clock or sleeps except through its {@code TimeSource}.
 */
public interface TimeSource {

    /** Wall-clock milliseconds since the Unix epoch. */
    long currentTimeMillis();

    /**
     * Returns once {@link #currentTimeMillis()} has reached {@code epochMillis}. Waits without burning a
     * core for the bulk of the wait; an interrupt does not cut it short (the wait is bounded by the caller)
     * but the thread's interrupt status is kept.
     */
    void sleepUntil(long epochMillis);

    /** The system clock. */
    static TimeSource system() {
        return SystemTimeSource.INSTANCE;
    }
}
