package io.vesta.sequence;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The unit/slot state machine shared by the lock-based sequencers. Not thread-safe: callers hold a lock.
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
    private final int slotBits;
    private final long maxSlot;

    /*
     * Written only under the caller's lock; read without it by health checks, metrics and the Actuator
     * endpoint, which must never wait on a generator (a caller may hold the lock through a bounded wait for
     * the clock). Release stores make a reader see a value that was actually held, at the price of a plain
     * store on x86; the lock already orders them for the writers.
     */
    private long unit;
    private long slot;
    private long issued;

    /** @param slotBits how far a unit is shifted in a packed value; see {@link Sequencer} */
    UnitSequence(Timeline timeline, int slotBits) {
        this.timeline = timeline;
        this.slotBits = slotBits;
        this.maxSlot = (1L << slotBits) - 1;
        this.unit = timeline.startUnit();
        this.slot = maxSlot;
    }

    long reserve(int count) {
        for (;;) {
            long now = timeline.currentUnit();
            if (now > unit) {
                timeline.admit(now);
                UNIT.setRelease(this, now);
                slot = Math.min(count, maxSlot + 1) - 1;
                ISSUED.setRelease(this, issued + slot + 1);
                return now << slotBits;
            }
            if (now == unit) {
                if (slot < maxSlot) {
                    long first = slot + 1;
                    slot = Math.min(maxSlot, slot + count);
                    ISSUED.setRelease(this, issued + slot - first + 1);
                    return (unit << slotBits) | first;
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
