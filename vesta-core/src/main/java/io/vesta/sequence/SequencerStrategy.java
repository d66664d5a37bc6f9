package io.vesta.sequence;

import java.util.function.BiFunction;

/**
 * How a generator's unit/seq state is guarded: the user's choice ({@code vesta.sequencer}). All three issue unique,
 * strictly increasing IDs per node.
 */
public enum SequencerStrategy {

    /** A non-fair {@code ReentrantLock}. */
    LOCK(LockSequencer::new),

    /** The object monitor. */
    SYNCHRONIZED(SynchronizedSequencer::new),

    /**
     * Lock-free compare-and-set on one packed {@code AtomicLong}: the default. The cheapest per ID, and the only one
     * whose wait for a new unit holds no lock.
     */
    CAS(CasSequencer::new);

    private final BiFunction<Timeline, Integer, Sequencer> factory;

    SequencerStrategy(BiFunction<Timeline, Integer, Sequencer> factory) {
        this.factory = factory;
    }

    Sequencer create(Timeline timeline, int blockBits) {
        return factory.apply(timeline, blockBits);
    }
}
