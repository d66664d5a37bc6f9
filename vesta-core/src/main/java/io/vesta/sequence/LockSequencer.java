package io.vesta.sequence;

import java.util.concurrent.locks.ReentrantLock;

/** {@link SequencerStrategy#LOCK}: the unit/seq state behind a non-fair {@link ReentrantLock}. */
final class LockSequencer extends Sequencer {

    private final ReentrantLock lock = new ReentrantLock();
    private final UnitSequence sequence;

    LockSequencer(Timeline timeline, int blockBits) {
        super(timeline, blockBits);
        this.sequence = new UnitSequence(timeline, slotBits);
    }

    @Override
    long reserve(int count) {
        lock.lock();
        try {
            return sequence.reserve(count);
        } finally {
            lock.unlock();
        }
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
        return SequencerStrategy.LOCK;
    }
}
