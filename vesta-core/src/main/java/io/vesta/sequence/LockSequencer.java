package io.vesta.sequence;

import java.util.concurrent.locks.ReentrantLock;

/** {@link SequencerStrategy#LOCK}: the unit/seq state behind a non-fair {@link ReentrantLock}. */
final class LockSequencer extends Sequencer {

    private final ReentrantLock lock = new ReentrantLock();
    private final UnitSequence sequence;

    LockSequencer(Timeline timeline) {
        super(timeline);
        this.sequence = new UnitSequence(timeline);
    }

    @Override
    public long next() {
        return reserve(1);
    }

    @Override
    public long reserve(int count) {
        lock.lock();
        try {
            return sequence.reserve(count);
        } finally {
            lock.unlock();
        }
    }

    @Override
    protected long lastUnit() {
        lock.lock();
        try {
            return sequence.unit();
        } finally {
            lock.unlock();
        }
    }

    @Override
    public long issued() {
        lock.lock();
        try {
            return sequence.issued();
        } finally {
            lock.unlock();
        }
    }

    @Override
    public SequencerStrategy strategy() {
        return SequencerStrategy.LOCK;
    }
}
