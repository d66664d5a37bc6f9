package io.vesta.sequence;

/** {@link SequencerStrategy#SYNCHRONIZED}: the unit/seq state behind the object's monitor. */
final class SynchronizedSequencer extends LockedSequencer {

    SynchronizedSequencer(Timeline timeline, int blockBits) {
        super(timeline, blockBits);
    }

    @Override
    synchronized long reserve(int count) {
        return sequence.reserve(count);
    }

    @Override
    SequencerStrategy strategy() {
        return SequencerStrategy.SYNCHRONIZED;
    }
}
