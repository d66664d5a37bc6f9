package io.vesta.sequence;

import io.vesta.ClockMovedBackwardsException;
import io.vesta.layout.IdLayout;
import io.vesta.machine.MachineIdBlock;
import io.vesta.machine.MachineIdLease;
import io.vesta.time.TimeSource;
import io.vesta.time.TimestampStore;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.LongAdder;

/**
 * The time side of one generator: reads the clock in the layout's unit, waits out an exhausted unit or a
 * small step back, refuses a large one, and keeps the persisted high-water mark ahead of every unit the
 * generator moves into (the mark itself, admissions and close are {@link HighWaterMark}'s). Sequencers call it only
 * when they leave their current unit, so nothing here is on the per-ID path except {@link #currentUnit()}.
 */
final class Timeline {

    /** Added to every bounded wait for a late wake-up; see {@link #boundNanos}. */
    static final long WAIT_SLACK_MILLIS = 2;

    private final TimeSource timeSource;
    private final IdLayout layout;
    private final long epochMillis;
    private final long unitMillis;
    private final Duration maxBackwardWait;
    private final long maxBackwardWaitMillis;
    private final MachineIdLease lease;
    private final MachineIdBlock block;
    /** The persisted high-water mark, the units admitted under it and the mark the generator restarted after. */
    private final HighWaterMark marks;

    private final LongAdder exhaustedWaits = new LongAdder();
    private final LongAdder exhaustedWaitNanos = new LongAdder();
    private final LongAdder backwardSteps = new LongAdder();
    private volatile long lastBackwardUnit = Long.MIN_VALUE;

    /**
     * @param store may be null; then nothing is persisted
     * @param persistStep how far ahead of the issued time the stored mark is pushed each time it is written
     * @param block the machine IDs the generator issues under, for messages
     * @param lease checked before every ID
     * @param notBefore a mark from elsewhere (a previous owner of the machine ID), Unix ms, or null
     * @param notBeforeSource where {@code notBefore} came from, for messages
     * @throws IllegalStateException if a mark lies beyond the last time the layout can represent
     */
    Timeline(TimeSource timeSource, IdLayout layout, Instant epoch, Duration maxBackwardWait,
            TimestampStore store, Duration persistStep, MachineIdBlock block, MachineIdLease lease, Long notBefore,
            String notBeforeSource) {
        this.timeSource = timeSource;
        this.layout = layout;
        this.epochMillis = epoch.toEpochMilli();
        this.unitMillis = layout.unitMillis();
        this.maxBackwardWait = maxBackwardWait;
        this.maxBackwardWaitMillis = maxBackwardWait.toMillis();
        this.block = block;
        this.lease = lease;
        this.marks = new HighWaterMark(layout, epochMillis, store, Math.max(unitMillis, persistStep.toMillis()), block,
                lease, notBefore, notBeforeSource);
    }

    IdLayout layout() {
        return layout;
    }

    /**
     * The unit the generator starts in, as if it were used up: -1 on a first start, the last unit covered
     * by the stored mark after a restart. A sequencer issues only in later units.
     */
    long startUnit() {
        return marks.startUnit();
    }

    /** The current time in the layout's unit since the epoch, if the machine ID is still held. */
    long currentUnit() {
        if (marks.isClosed()) {
            throw marks.closedException();
        }
        long now = timeSource.currentTimeMillis();
        if (!lease.isHeldAt(now)) {
            throw lease.notHeld(block, now);
        }
        return Math.floorDiv(now - epochMillis, unitMillis);
    }

    long startOf(long unit) {
        return epochMillis + unit * unitMillis;
    }

    /**
     * Called before the first ID of a new unit is issued: checks the time field has room and that the persisted mark
     * covers the unit ({@link HighWaterMark#admit}).
     */
    void admit(long unit) {
        marks.admit(unit);
    }

    /**
     * The unit is used up: waits for the clock to reach the next one, at most a unit away. A wall clock stepped
     * back before or during the wait by more than the step that may be waited out ends the wait with the
     * exception, rather than holding the caller (and under LOCK or SYNCHRONIZED, every other caller) for the
     * whole step.
     */
    void awaitUnitAfter(long unit) {
        exhaustedWaits.increment();
        long started = timeSource.nanoTime();
        try {
            waitFor(startOf(unit + 1), unitMillis);
        } finally {
            exhaustedWaitNanos.add(timeSource.nanoTime() - started);
        }
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
            throw refusal(lastUnit, now);
        }
        waitFor(target, 0);
    }

    /**
     * The refusal of a call whose clock reads {@code now}, before the start of {@code lastUnit}. The start unit is
     * never issued in (it counts as used up): a generator whose last unit is still that one has issued nothing, and
     * the clock is behind the mark it started after, not behind IDs of its own.
     */
    ClockMovedBackwardsException refusal(long lastUnit, long now) {
        long startUnit = marks.startUnit();
        long restartMark = marks.restartMark();
        long persistStepMillis = marks.persistStepMillis();
        if (lastUnit == startUnit && marks.restartMarkSource() != null) {
            // A stored mark is never saved further ahead of its run's clock than the persist step (close() saves the
            // exact one): a clock further behind it is behind that run's clock. A lease's reach is the provider's.
            String clockBehind = marks.restartMarkFromStore() && restartMark - now > persistStepMillis
                    ? "That is further than the persist step of " + persistStepMillis + " ms, as far as a run saves"
                            + " its mark ahead: unless the previous run had a longer one, the clock is behind the clock"
                            + " of the run that saved the mark (set back while the node was down, or that run's clock"
                            + " was ahead)."
                    : null;
            return ClockMovedBackwardsException.beforeReservedTime(Instant.ofEpochMilli(restartMark),
                    Instant.ofEpochMilli(startOf(startUnit + 1)), Instant.ofEpochMilli(now), maxBackwardWait,
                    marks.restartMarkSource(), clockBehind);
        }
        return new ClockMovedBackwardsException(Instant.ofEpochMilli(startOf(lastUnit)), Instant.ofEpochMilli(now),
                maxBackwardWait);
    }

    /** The refusal a call would get now if the generator's last unit is {@code lastUnit}, or null if none. */
    ClockMovedBackwardsException refusalNow(long lastUnit) {
        long now = timeSource.currentTimeMillis();
        return startOf(lastUnit) - now > maxBackwardWaitMillis ? refusal(lastUnit, now) : null;
    }

    /**
     * Waits for the wall clock to reach {@code target}, which should be at most {@code expectedMillis} away
     * (beyond a step back that may be waited out). Each sleep is bounded on the monotonic clock; when one ends
     * early, the wait goes on only while the wall clock has kept pace with the monotonic one. So a thread that
     * was descheduled for a while (a loaded machine) simply waits on, and a wall clock that fell behind the time
     * that passed by more than {@code maxBackwardWait} (a step back during the wait) is refused at once.
     */
    private void waitFor(long target, long expectedMillis) {
        long startWall = timeSource.currentTimeMillis();
        long startNanos = timeSource.nanoTime();
        if (target - startWall > expectedMillis + maxBackwardWaitMillis) {
            throw steppedBack(target); // stepped back since the caller read the clock
        }
        for (;;) {
            long distance = Math.max(0, target - timeSource.currentTimeMillis());
            if (timeSource.sleepUntil(target, boundNanos(distance + maxBackwardWaitMillis))) {
                return;
            }
            long now = timeSource.currentTimeMillis();
            if (now >= target) {
                return;
            }
            long passedMillis = (timeSource.nanoTime() - startNanos) / 1_000_000;
            if (startWall + passedMillis - now > maxBackwardWaitMillis) {
                throw steppedBack(target);
            }
        }
    }

    private ClockMovedBackwardsException steppedBack(long target) {
        backwardSteps.increment();
        lastBackwardUnit = Long.MIN_VALUE;
        return ClockMovedBackwardsException.duringWait(Instant.ofEpochMilli(target),
                Instant.ofEpochMilli(timeSource.currentTimeMillis()), maxBackwardWait);
    }

    /**
     * A bound in nanoseconds for a wait of {@code millis}, with {@link #WAIT_SLACK_MILLIS} for a wake-up that
     * comes late: a park returns some tens of microseconds after its deadline, and the wall clock moves in
     * whole milliseconds.
     */
    private static long boundNanos(long millis) {
        return (millis + WAIT_SLACK_MILLIS) * 1_000_000;
    }

    /**
     * Blocks a (re)started generator until the clock passes the restart mark, when the mark is ahead by no
     * more than one persist step: the case of a restart right after a crash. A clock further behind than that
     * was set back, and is left to the step-back policy of the first call.
     */
    void awaitRestartMark() {
        long restartMark = marks.restartMark();
        if (restartMark == Long.MIN_VALUE) {
            return;
        }
        long ahead = restartMark - timeSource.currentTimeMillis();
        if (ahead > 0 && ahead <= marks.persistStepMillis()) {
            // Bounded like every wait: a clock stepped back meanwhile is left to the first call to refuse.
            timeSource.sleepUntil(restartMark, boundNanos(ahead));
        }
    }

    /** Ends the timeline: no unit is admitted and no ID issued from now on ({@link HighWaterMark#close}). */
    void close() {
        marks.close();
    }

    boolean isClosed() {
        return marks.isClosed();
    }

    /** How far the clock is behind the start of {@code unit}; zero or negative when it is not. */
    long millisBehind(long unit) {
        return startOf(unit) - timeSource.currentTimeMillis();
    }

    long exhaustedWaits() {
        return exhaustedWaits.sum();
    }

    Duration exhaustedWaitTime() {
        return Duration.ofNanos(exhaustedWaitNanos.sum());
    }

    long clockBackwardSteps() {
        return backwardSteps.sum();
    }

    Duration maxBackwardWait() {
        return maxBackwardWait;
    }
}
