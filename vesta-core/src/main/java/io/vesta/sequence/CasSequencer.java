package io.vesta.sequence;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * {@link SequencerStrategy#CAS}: lock-free. The whole state is one {@code long} packed exactly like the
 * time-seq it hands out, {@code (unit << seqBits) | lastSeq}, so taking the next number in the same unit is
 * a single compare-and-set of {@code state + granted}; moving to a new unit is a compare-and-set too.
 * The state starts at {@code (startUnit, maxSeq)}: a unit that counts as used up.
 */
final class CasSequencer extends Sequencer {

    private final AtomicLong state;
    private final long initialState;
    private final LongAdder completedUnitsIssued = new LongAdder();

    CasSequencer(Timeline timeline) {
        super(timeline);
        this.initialState = (timeline.startUnit() << seqBits) | maxSeq;
        this.state = new AtomicLong(initialState);
    }

    @Override
    long reserve(int count) {
        for (;;) {
            long current = state.get();
            long unit = current >> seqBits; // arithmetic: the start unit may be -1
            long seq = current & maxSeq;
            long now = timeline.currentUnit();
            if (now > unit) {
                timeline.admit(now);
                long granted = Math.min(count, maxSeq + 1);
                long first = now << seqBits;
                if (state.compareAndSet(current, first | (granted - 1))) {
                    if (current != initialState) {
                        completedUnitsIssued.add(seq + 1);
                    }
                    return first;
                }
            } else if (now == unit) {
                if (seq < maxSeq) {
                    long granted = Math.min(count, maxSeq - seq);
                    if (state.compareAndSet(current, current + granted)) {
                        return current + 1;
                    }
                } else {
                    timeline.awaitUnitAfter(unit);
                }
            } else {
                timeline.awaitClockCatchUp(unit);
            }
        }
    }

    @Override
    long lastUnit() {
        return state.get() >> seqBits;
    }

    @Override
    long issued() {
        long current = state.get();
        return current == initialState ? completedUnitsIssued.sum() : completedUnitsIssued.sum() + (current & maxSeq) + 1;
    }

    @Override
    SequencerStrategy strategy() {
        return SequencerStrategy.CAS;
    }
}
