package io.vesta.sequence;

/** {@link SequencerStrategy#SYNCHRONIZED}: the unit/seq state behind the object's monitor. */
final class SynchronizedSequencer extends Sequencer {

    private final UnitSequence sequence;

    SynchronizedSequencer(Timeline timeline) {
        super(timeline);
        this.sequence = new UnitSequence(timeline);
    }

    @Override
    public synchronized long reserve(int count) {
        return sequence.reserve(count);
    }

    @Override
    protected long lastUnit() {
        return sequence.unit();
    }

    @Override
    public long issued() {
        return sequence.issued();
    }

    @Override
    public SequencerStrategy strategy() {
        return SequencerStrategy.SYNCHRONIZED;
    }
}
