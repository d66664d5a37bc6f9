package io.vesta.sequence;

/**
 * The unit/seq state machine shared by the lock-based sequencers. Not thread-safe: callers hold a lock.
 *
 * <p>The original Vesta's lock and synchronized populators repeat IDs when a unit is used up: after
 * waiting for the next unit they reset the sequence but do not record the new unit, so the following call
 * sees the old unit with sequence 0 and issues its numbers again. Here the unit moves forward only in the
 * branch that also resets the sequence, and waiting just loops back to read the clock.
 */
final class UnitSequence {

    private final Timeline timeline;
    private final int seqBits;
    private final long maxSeq;
    private final long startUnit;

    private long unit;
    private long seq;
    private long completedUnitsIssued;

    UnitSequence(Timeline timeline) {
        this.timeline = timeline;
        this.seqBits = timeline.layout().seqBits();
        this.maxSeq = timeline.layout().maxSeq();
        this.startUnit = timeline.startUnit();
        this.unit = startUnit;
        this.seq = maxSeq;
    }

    long reserve(int count) {
        for (;;) {
            long now = timeline.currentUnit();
            if (now > unit) {
                timeline.admit(now);
                if (unit != startUnit) {
                    completedUnitsIssued += seq + 1;
                }
                unit = now;
                seq = Math.min(count, maxSeq + 1) - 1;
                return now << seqBits;
            }
            if (now == unit) {
                if (seq < maxSeq) {
                    long first = seq + 1;
                    seq = Math.min(maxSeq, seq + count);
                    return (unit << seqBits) | first;
                }
                timeline.awaitUnitAfter(unit);
            } else {
                timeline.awaitClockCatchUp(unit);
            }
        }
    }

    long unit() {
        return unit;
    }

    long issued() {
        return unit == startUnit ? completedUnitsIssued : completedUnitsIssued + seq + 1;
    }
}
