package io.vesta.sequence;

import io.vesta.ClockMovedBackwardsException;
import io.vesta.layout.IdLayout;
import io.vesta.machine.MachineIdLease;
import io.vesta.time.TimeSource;
import io.vesta.time.TimestampStore;

import java.time.Duration;
import java.time.Instant;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * The time side of one generator: reads the clock in the layout's unit, waits out an exhausted unit or a
 * small step back, refuses a large one, and keeps the persisted high-water mark ahead of every unit the
 * generator moves into. Sequencers call it only when they leave their current unit, so nothing here is on
 * the per-ID path except {@link #currentUnit()}.
 */
public final class Timeline {

    private final TimeSource timeSource;
    private final IdLayout layout;
    private final long epochMillis;
    private final long unitMillis;
    private final Duration maxBackwardWait;
    private final long maxBackwardWaitMillis;
    private final TimestampStore store;
    private final long persistStepMillis;
    private final MachineIdLease lease;
    private final long machineId;

    /** Every issued unit starts before this; {@code Long.MAX_VALUE} without a store. */
    private volatile long reservedUntil;
    private final AtomicLong highestAdmitted = new AtomicLong(Long.MIN_VALUE);
    private final long startUnit;
    private final long restartMark;

    private final LongAdder exhaustedWaits = new LongAdder();
    private final LongAdder exhaustedWaitNanos = new LongAdder();
    private final LongAdder backwardSteps = new LongAdder();
    private volatile long lastBackwardUnit = Long.MIN_VALUE;

    /**
     * @param store may be null; then nothing is persisted
     * @param persistStep how far ahead of the issued time the stored mark is pushed each time it is written
     * @param lease checked before every ID
     * @param notBefore a mark from elsewhere (a previous owner of the machine ID), Unix ms, or null
     */
    public Timeline(TimeSource timeSource, IdLayout layout, Instant epoch, Duration maxBackwardWait,
            TimestampStore store, Duration persistStep, long machineId, MachineIdLease lease, Long notBefore) {
        this.timeSource = timeSource;
        this.layout = layout;
        this.epochMillis = epoch.toEpochMilli();
        this.unitMillis = layout.unitMillis();
        this.maxBackwardWait = maxBackwardWait;
        this.maxBackwardWaitMillis = maxBackwardWait.toMillis();
        this.store = store;
        this.persistStepMillis = Math.max(unitMillis, persistStep.toMillis());
        this.machineId = machineId;
        this.lease = lease;
        OptionalLong stored = store == null ? OptionalLong.empty() : store.load();
        this.reservedUntil = store == null ? Long.MAX_VALUE : stored.orElse(Long.MIN_VALUE);
        long mark = Math.max(stored.orElse(Long.MIN_VALUE), notBefore == null ? Long.MIN_VALUE : notBefore);
        this.restartMark = mark;
        // Every unit issued before the mark starts strictly before it, so those units count as used up.
        this.startUnit = mark == Long.MIN_VALUE ? -1 : Math.max(-1, Math.floorDiv(mark - 1 - epochMillis, unitMillis));
    }

    public IdLayout layout() {
        return layout;
    }

    /**
     * The unit the generator starts in, as if it were used up: -1 on a first start, the last unit covered
     * by the stored mark after a restart. A sequencer issues only in later units.
     */
    long startUnit() {
        return startUnit;
    }

    /** The current time in the layout's unit since the epoch, if the machine ID is still held. */
    long currentUnit() {
        long now = timeSource.currentTimeMillis();
        if (!lease.isHeldAt(now)) {
            throw lease.notHeld(machineId, now);
        }
        return Math.floorDiv(now - epochMillis, unitMillis);
    }

    long startOf(long unit) {
        return epochMillis + unit * unitMillis;
    }

    /**
     * Called before the first ID of a new unit is issued: checks the time field has room and that the
     * persisted mark covers the unit, writing a new mark first if it does not.
     */
    void admit(long unit) {
        if (unit > layout.maxTime()) {
            throw new IllegalStateException("The " + layout.type() + " time field is full: it holds "
                    + layout.maxTime() + " units after the epoch " + Instant.ofEpochMilli(epochMillis)
                    + ", up to " + Instant.ofEpochMilli(startOf(layout.maxTime() + 1) - 1)
                    + "; new deployments need a later epoch");
        }
        if (store != null) {
            highestAdmitted.accumulateAndGet(unit, Math::max);
            if (startOf(unit) >= reservedUntil) {
                extend(unit);
            }
        }
    }

    private synchronized void extend(long unit) {
        if (startOf(unit) < reservedUntil) {
            return;
        }
        long mark = startOf(unit) + persistStepMillis;
        store.save(mark);
        reservedUntil = mark;
    }

    /** The unit is used up: waits for the clock to reach the next one. */
    void awaitUnitAfter(long unit) {
        exhaustedWaits.increment();
        long started = System.nanoTime();
        timeSource.sleepUntil(startOf(unit + 1));
        exhaustedWaitNanos.add(System.nanoTime() - started);
    }

    /**
     * The clock reads earlier than {@code lastUnit}: waits if the step back is within the limit, else throws.
     * Returns at once if the clock has caught up in the meantime (another thread may simply have read it later).
     */
    void awaitClockCatchUp(long lastUnit) {
        long now = timeSource.currentTimeMillis();
        long target = startOf(lastUnit);
        long behind = target - now;
        if (behind <= 0) {
            return;
        }
        if (lastBackwardUnit != lastUnit) {
            lastBackwardUnit = lastUnit;
            backwardSteps.increment();
        }
        if (behind > maxBackwardWaitMillis) {
            throw new ClockMovedBackwardsException(Instant.ofEpochMilli(target), Instant.ofEpochMilli(now), maxBackwardWait);
        }
        timeSource.sleepUntil(target);
    }

    /**
     * Blocks a (re)started generator until the clock passes the restart mark, when the mark is ahead by no
     * more than one persist step: the case of a restart right after a crash. A clock further behind than that
     * was set back, and is left to the step-back policy of the first call.
     */
    public void awaitRestartMark() {
        if (restartMark == Long.MIN_VALUE) {
            return;
        }
        long ahead = restartMark - timeSource.currentTimeMillis();
        if (ahead > 0 && ahead <= persistStepMillis) {
            timeSource.sleepUntil(restartMark);
        }
    }

    /**
     * Writes the exact mark after the last admitted unit, so that a clean restart need not wait out the
     * rest of the persist step. Call after the last ID.
     */
    public synchronized void persistExact() {
        long highest = highestAdmitted.get();
        if (store == null || highest == Long.MIN_VALUE) {
            return;
        }
        long mark = startOf(highest + 1);
        if (mark < reservedUntil) {
            store.save(mark);
            reservedUntil = mark;
        }
    }

    /** How far the clock is behind the start of {@code unit}; zero or negative when it is not. */
    long millisBehind(long unit) {
        return startOf(unit) - timeSource.currentTimeMillis();
    }

    public long exhaustedWaits() {
        return exhaustedWaits.sum();
    }

    public Duration exhaustedWaitTime() {
        return Duration.ofNanos(exhaustedWaitNanos.sum());
    }

    public long clockBackwardSteps() {
        return backwardSteps.sum();
    }

    public Duration maxBackwardWait() {
        return maxBackwardWait;
    }

    /** The persisted mark, or null without a store or before the first write. */
    public Instant storedMark() {
        long mark = reservedUntil;
        return store == null || mark == Long.MIN_VALUE ? null : Instant.ofEpochMilli(mark);
    }
}
