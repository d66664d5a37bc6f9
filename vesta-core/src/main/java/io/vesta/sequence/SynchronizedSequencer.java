package io.vesta.sequence;

/** {@link SequencerStrategy#SYNCHRONIZED}: the unit/seq state behind the object's monitor. */
final class SynchronizedSequencer extends Sequencer {

    private final UnitSequence sequence;

    SynchronizedSequencer(Timeline timeline) {
        super(timeline);
        this.sequence = new UnitSequence(timeline);
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
