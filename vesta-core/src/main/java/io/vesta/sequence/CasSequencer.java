package io.vesta.sequence;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * {@link SequencerStrategy#CAS}: lock-free, the default. The whole state is one {@code long}: the unit in the high
 * bits and, below them, a counter of the slots of that unit taken so far, {@code (unit << counterBits) | taken}.
 * Taking one slot in the current unit is a single fetch-and-add, which never has to be retried however many threads
 * take slots at once; moving to a new unit, and a batch, are a compare-and-set. The state starts at
 * {@code (startUnit, slotsPerUnit)}: a unit that counts as used up.
 *
 * <p>The counter has more bits than a unit has slots ({@code counterBits = 63 - timeBits}, at least 23 where a unit
 * has at most 2^16 slots, and 33 against 2^26), so the increments of callers that find a unit used up only carry the
 * counter past the unit's last slot, never into the unit: each thread adds at most one before it waits or reads the
 * state again. A slot at or past the end is never issued.
 */
final class CasSequencer extends Sequencer {

    private final int counterBits;
    private final long counterMask;
    /** Slots per unit: {@code maxSlot + 1}. */
    private final long slots;
    private final AtomicLong state;
    private final long initialState;
    private final LongAdder completedUnitsIssued = new LongAdder();
    /**
     * Slots below the end of a unit that an increment took after another thread had moved the state to that unit:
     * never issued, so subtracted from what the counters say was issued.
     */
    private final LongAdder skipped = new LongAdder();

    CasSequencer(Timeline timeline, int blockBits) {
        super(timeline, blockBits);
        this.counterBits = 63 - timeline.layout().timeBits();
        if (counterBits <= slotBits + 6) {
            throw new IllegalStateException("the state of " + timeline.layout() + " has no room for a counter of "
                    + slotBits + " bits");
        }
        this.counterMask = (1L << counterBits) - 1;
        this.slots = maxSlot + 1;
        this.initialState = (timeline.startUnit() << counterBits) | slots;
        this.state = new AtomicLong(initialState);
    }

    /*
     * The clock (and with it the lease) is read once per call and again only after a wait.
     */
    @Override
    long reserve(int count) {
        long now = timeline.currentUnit();
        for (;;) {
            long current = state.get();
            long unit = current >> counterBits; // arithmetic: the start unit may be -1
            long taken = current & counterMask;
            if (now > unit) {
                timeline.admit(now);
                long granted = Math.min(count, slots);
                if (state.compareAndSet(current, (now << counterBits) | granted)) {
                    if (current != initialState) {
                        completedUnitsIssued.add(Math.min(taken, slots));
                    }
                    return now << slotBits;
                }
            } else if (now == unit) {
                if (taken >= slots) {
                    timeline.awaitUnitAfter(unit);
                    now = timeline.currentUnit();
                } else if (count == 1) {
                    long previous = state.getAndIncrement();
                    long slot = previous & counterMask;
                    if ((previous >> counterBits) != now) {
                        // Another thread moved the state to a later unit between the read and the increment, which
                        // took a slot of that unit: a gap. Read the state again.
                        if (slot < slots) {
                            skipped.increment();
                        }
                    } else if (slot < slots) {
                        return (now << slotBits) | slot;
                    }
                    // else the unit ran out between the read and the increment: the next read waits for the next.
                } else {
                    long granted = Math.min(count, slots - taken);
                    if (state.compareAndSet(current, current + granted)) {
                        return (now << slotBits) | taken;
                    }
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
        return state.get() >> counterBits;
    }

    @Override
    long issued() {
        long current = state.get();
        long inCurrent = current == initialState ? 0 : Math.min(current & counterMask, slots);
        return completedUnitsIssued.sum() + inCurrent - skipped.sum();
    }

    @Override
    SequencerStrategy strategy() {
        return SequencerStrategy.CAS;
    }
}
