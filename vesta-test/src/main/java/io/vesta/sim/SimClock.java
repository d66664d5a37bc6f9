package io.vesta.sim;

import io.vesta.time.TimeSource;

/**
 * A node's clock in a simulation: the scheduler's true time plus an offset that drifts and steps, always within
 * {@code ±maxSkew / 2} of the true time, so that any two nodes' clocks agree within {@code maxSkew}: the bound the
 * stores document (Redis's {@code max-clock-skew}). The monotonic clock is the true time and never steps.
 *
 * <p>Nodes never sleep in a simulation (a sleeping thread would stop the one thread that runs): {@link #sleepUntil}
 * returns at once, without moving time. The simulated generators wait for nothing (a step back of the clock is
 * refused, never waited out, and no node asks for more IDs in a millisecond than a unit holds); a wait that would
 * loop fails the run instead of hanging it.
 */
public final class SimClock implements TimeSource {

    private final Scheduler scheduler;
    private final long start;
    private final long maxOffset;
    private long offset;
    private long sleepsAt = Long.MIN_VALUE;
    private int sleeps;

    SimClock(Scheduler scheduler, long maxSkew, long offset) {
        this.scheduler = scheduler;
        this.start = scheduler.now();
        this.maxOffset = maxSkew / 2;
        this.offset = clamp(offset);
    }

    private long clamp(long value) {
        return Math.max(-maxOffset, Math.min(maxOffset, value));
    }

    @Override
    public long currentTimeMillis() {
        return scheduler.now() + offset;
    }

    @Override
    public long nanoTime() {
        return (scheduler.now() - start) * 1_000_000;
    }

    @Override
    public boolean sleepUntil(long epochMillis, long maxNanos) {
        long now = scheduler.now();
        if (now != sleepsAt) {
            sleepsAt = now;
            sleeps = 0;
        }
        if (++sleeps > 1_000) {
            throw new IllegalStateException("a simulated node waited for its clock 1000 times in one millisecond");
        }
        return currentTimeMillis() >= epochMillis;
    }

    /** The clock drifts by {@code delta} ms, within the bound. */
    void drift(long delta) {
        offset = clamp(offset + delta);
    }

    /** The clock is stepped (NTP, an operator) to {@code newOffset} from the true time, within the bound. */
    void step(long newOffset) {
        offset = clamp(newOffset);
    }

    long offset() {
        return offset;
    }
}
