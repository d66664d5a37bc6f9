package io.vesta.sequence;

/** {@link SequencerStrategy#SYNCHRONIZED}: the unit/seq state behind the object's monitor. */
final class SynchronizedSequencer extends Sequencer {

    private final UnitSequence sequence;

    SynchronizedSequencer(Timeline timeline, int blockBits) {
        super(timeline, blockBits);
        this.sequence = new UnitSequence(timeline, slotBits);
    }

    @Override
    synchronized long reserve(int count) {
        return sequence.reserve(count);
    }

    @Override
    long lastUnit() {
        return sequence.unit();
    }

    @Override
    long issued() {
        return sequence.issued();
    }

    @Override
    SequencerStrategy strategy() {
        return SequencerStrategy.SYNCHRONIZED;
    }
}
