package io.vesta.sequence;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The unit/seq state machine shared by the lock-based sequencers. Not thread-safe: callers hold a lock.
 *
 * <p>The original Vesta's lock and synchronized populators repeat IDs when a unit is used up: after
 * waiting for the next unit they reset the sequence but do not record the new unit, so the following call
 * sees the old unit with sequence 0 and issues its numbers again. Here the unit moves forward only in the
 * branch that also resets the sequence, and waiting just loops back to read the clock.
 */
final class UnitSequence {

    private static final VarHandle UNIT;
    private static final VarHandle ISSUED;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            UNIT = lookup.findVarHandle(UnitSequence.class, "unit", long.class);
            ISSUED = lookup.findVarHandle(UnitSequence.class, "issued", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final Timeline timeline;
    private final int seqBits;
    private final long maxSeq;

    /*
     * Written only under the caller's lock; read without it by health checks, metrics and the Actuator
     * endpoint, which must never wait on a generator (a caller may hold the lock through a bounded wait for
     * the clock). Release stores make a reader see a value that was actually held, at the price of a plain
     * store on x86; the lock already orders them for the writers.
     */
    private long unit;
    private long seq;
    private long issued;

    UnitSequence(Timeline timeline) {
        this.timeline = timeline;
        this.seqBits = timeline.layout().seqBits();
        this.maxSeq = timeline.layout().maxSeq();
        this.unit = timeline.startUnit();
        this.seq = maxSeq;
    }

    long reserve(int count) {
        for (;;) {
            long now = timeline.currentUnit();
            if (now > unit) {
                timeline.admit(now);
                UNIT.setRelease(this, now);
                seq = Math.min(count, maxSeq + 1) - 1;
                ISSUED.setRelease(this, issued + seq + 1);
                return now << seqBits;
            }
            if (now == unit) {
                if (seq < maxSeq) {
                    long first = seq + 1;
                    seq = Math.min(maxSeq, seq + count);
                    ISSUED.setRelease(this, issued + seq - first + 1);
                    return (unit << seqBits) | first;
                }
                timeline.awaitUnitAfter(unit);
            } else {
                timeline.awaitClockCatchUp(unit);
            }
        }
    }

    /** The unit of the last issued ID; readable without the lock. */
    long unit() {
        return (long) UNIT.getAcquire(this);
    }

    /** How many IDs were issued; readable without the lock. */
    long issued() {
        return (long) ISSUED.getAcquire(this);
    }
}
