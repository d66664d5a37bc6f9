package io.vesta.benchmarks;

import io.vesta.time.TimeSource;

import java.util.concurrent.atomic.AtomicLong;

/**
 * A clock that stands still until the generator waits: {@link #sleepUntil(long, long)} moves it straight to the
 * target. A generator on this clock never meets its layout's ceiling in real time (a used-up unit is followed
 * at once by the next), so a benchmark on it measures the CPU cost of issuing IDs, not the wait for the clock.
 *
 * <p>Reading it is one volatile load, cheaper than {@link System#currentTimeMillis()} (a vDSO call of
 * some 20 ns): {@code PeerCostBenchmark.currentTimeMillis} measures that difference in the same run.
 */
public final class VirtualTimeSource implements TimeSource {

    private final AtomicLong millis;

    public VirtualTimeSource(long startMillis) {
        this.millis = new AtomicLong(startMillis);
    }

    @Override
    public long currentTimeMillis() {
        return millis.get();
    }

    /** Moves the clock straight to the target, whatever the bound: on this clock a wait takes no time. */
    @Override
    public boolean sleepUntil(long epochMillis, long maxNanos) {
        millis.accumulateAndGet(epochMillis, Math::max);
        return true;
    }

    @Override
    public String toString() {
        return "virtual clock at " + millis.get();
    }
}
