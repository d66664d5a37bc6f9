package io.vesta.sequence;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * {@link SequencerStrategy#CAS}: lock-free, the default. The whole state is one {@code long} packed exactly like the
 * value it hands out, {@code (unit << slotBits) | lastSlot}, so taking the next slot in the same unit is a single
 * compare-and-set of {@code state + granted}; moving to a new unit is a compare-and-set too. The state starts at
 * {@code (startUnit, maxSlot)}: a unit that counts as used up.
 */
final class CasSequencer extends Sequencer {

    private final AtomicLong state;
    private final long initialState;
    private final LongAdder completedUnitsIssued = new LongAdder();

    CasSequencer(Timeline timeline, int blockBits) {
        super(timeline, blockBits);
        this.initialState = (timeline.startUnit() << slotBits) | maxSlot;
        this.state = new AtomicLong(initialState);
    }

    /*
     * The clock (and with it the lease) is read once per call and again only after a wait: a retry after a lost
     * compare-and-set re-reads the state alone. Reading the clock on every retry widened the window between read and
     * compare-and-set, so that two threads on a block of machine IDs lost most of their attempts to each other.
     */
    @Override
    long reserve(int count) {
        long now = timeline.currentUnit();
        for (;;) {
            long current = state.get();
            long unit = current >> slotBits; // arithmetic: the start unit may be -1
            long slot = current & maxSlot;
            if (now > unit) {
                timeline.admit(now);
                long granted = Math.min(count, maxSlot + 1);
                long first = now << slotBits;
                if (state.compareAndSet(current, first | (granted - 1))) {
                    if (current != initialState) {
                        completedUnitsIssued.add(slot + 1);
                    }
                    return first;
                }
            } else if (now == unit) {
                if (slot < maxSlot) {
                    long granted = Math.min(count, maxSlot - slot);
                    if (state.compareAndSet(current, current + granted)) {
                        return current + 1;
                    }
                } else {
                    timeline.awaitUnitAfter(unit);
                    now = timeline.currentUnit();
                }
            } else {
                // Another thread moved to a unit this call's clock reading had not reached.
                timeline.awaitClockCatchUp(unit);
                now = timeline.currentUnit();
            }
        }
    }

    @Override
    long lastUnit() {
        return state.get() >> slotBits;
    }

    @Override
    long issued() {
        long current = state.get();
        return current == initialState ? completedUnitsIssued.sum() : completedUnitsIssued.sum() + (current & maxSlot) + 1;
    }

    @Override
    SequencerStrategy strategy() {
        return SequencerStrategy.CAS;
    }
}
