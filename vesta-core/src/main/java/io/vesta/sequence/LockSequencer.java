package io.vesta.sequence;

import java.util.concurrent.locks.ReentrantLock;

/** {@link SequencerStrategy#LOCK}: the unit/seq state behind a non-fair {@link ReentrantLock}. */
final class LockSequencer extends LockedSequencer {

    private final ReentrantLock lock = new ReentrantLock();

    LockSequencer(Timeline timeline, int blockBits) {
        super(timeline, blockBits);
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
    SequencerStrategy strategy() {
        return SequencerStrategy.LOCK;
    }
}
