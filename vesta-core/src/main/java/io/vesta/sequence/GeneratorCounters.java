package io.vesta.sequence;

import java.time.Duration;

/**
 * What a generator counted since it started, read in one go ({@link TimeSeqGenerator#counters()}): a service that
 * moves to a new generator after losing its block keeps the counts of the old ones and adds them ({@link #plus}), so
 * its counters cover its whole life.
 *
 * @param issued how many slots were handed out
 * @param exhaustedWaits how many times a used-up unit made a caller wait for the next one
 * @param exhaustedWaitTime the total time callers spent waiting for a new unit after one was used up
 * @param clockBackwardSteps how many times the clock was seen behind the last issued unit
 */
public record GeneratorCounters(long issued, long exhaustedWaits, Duration exhaustedWaitTime, long clockBackwardSteps) {

    /** The counts of a generator that did nothing yet. */
    public static final GeneratorCounters NONE = new GeneratorCounters(0, 0, Duration.ZERO, 0);

    /** These counts and {@code other}'s together. */
    public GeneratorCounters plus(GeneratorCounters other) {
        return new GeneratorCounters(issued + other.issued, exhaustedWaits + other.exhaustedWaits,
                exhaustedWaitTime.plus(other.exhaustedWaitTime), clockBackwardSteps + other.clockBackwardSteps);
    }
}
