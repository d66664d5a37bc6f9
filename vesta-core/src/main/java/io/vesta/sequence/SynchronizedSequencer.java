package io.vesta.sequence;

/** {@link SequencerStrategy#SYNCHRONIZED}: the unit/seq state behind the object's monitor. */
final class SynchronizedSequencer extends Sequencer {

    private final UnitSequence sequence;

    SynchronizedSequencer(Timeline timeline) {
        super(timeline);
        this.sequence = new UnitSequence(timeline);
    }

    @Override
    public long next() {
        return reserve(1);
    }

    @Override
    public synchronized long reserve(int count) {
        return sequence.reserve(count);
    }

    @Override
    protected synchronized long lastUnit() {
        return sequence.unit();
    }

    @Override
    public synchronized long issued() {
        return sequence.issued();
    }

    @Override
    public SequencerStrategy strategy() {
        return SequencerStrategy.SYNCHRONIZED;
    }
}
