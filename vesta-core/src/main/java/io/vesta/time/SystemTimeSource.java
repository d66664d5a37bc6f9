package io.vesta.time;

import java.time.Clock;
import java.time.Instant;
import java.util.concurrent.locks.LockSupport;

/**
 * {@link System#currentTimeMillis()} and {@link System#nanoTime()}, and a wait that parks until shortly before
 * the target and spins only the last stretch: parking wakes up tens of microseconds late (the kernel's timer
 * slack), which at a 1 ms unit would cost several percent of throughput every millisecond, while spinning a
 * whole unit would burn a core for nothing.
 */
final class SystemTimeSource implements TimeSource {

    static final SystemTimeSource INSTANCE = new SystemTimeSource();

    /** Below this much remaining time the wait spins instead of parking. */
    private static final long SPIN_NANOS = 120_000;

    private final Clock clock = Clock.systemUTC();

    private SystemTimeSource() {
    }

    @Override
    public long currentTimeMillis() {
        return System.currentTimeMillis();
    }

    @Override
    public long nanoTime() {
        return System.nanoTime();
    }

    @Override
    public boolean sleepUntil(long epochMillis, long maxNanos) {
        long started = System.nanoTime();
        boolean interrupted = false;
        try {
            for (;;) {
                Instant now = clock.instant();
                if (now.toEpochMilli() >= epochMillis) {
                    return true;
                }
                long left = maxNanos - (System.nanoTime() - started);
                if (left <= 0) {
                    return false;
                }
                long untilTarget = (epochMillis - now.toEpochMilli()) * 1_000_000 - now.getNano() % 1_000_000;
                long remainingNanos = Math.min(untilTarget, left);
                if (remainingNanos > SPIN_NANOS) {
                    LockSupport.parkNanos(remainingNanos - SPIN_NANOS);
                    if (Thread.interrupted()) {
                        interrupted = true;
                    }
                } else {
                    Thread.onSpinWait();
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public String toString() {
        return "system clock";
    }
}
