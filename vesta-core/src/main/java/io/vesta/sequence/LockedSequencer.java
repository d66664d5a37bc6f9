package io.vesta.sequence;

/**
 * A sequencer whose unit/slot state is one {@link UnitSequence} behind a lock: the subclasses differ only in the
 * lock that guards {@link #reserve(int)}. The readings need none; {@link UnitSequence} publishes them.
 */
abstract class LockedSequencer extends Sequencer {

    /** Read and written only under the subclass's lock, except the readings below. */
    protected final UnitSequence sequence;

    protected LockedSequencer(Timeline timeline, int blockBits) {
        super(timeline, blockBits);
        this.sequence = new UnitSequence(timeline, slotBits);
    }

    @Override
    final long lastUnit() {
        return sequence.unit();
    }

    @Override
    final long issued() {
        return sequence.issued();
    }
}
