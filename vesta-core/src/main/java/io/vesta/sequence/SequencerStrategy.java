package io.vesta.sequence;

import java.util.function.Function;

/**
 * How a generator's unit/seq state is guarded: the user's choice ({@code vesta.sequencer}). All three issue unique,
 * strictly increasing IDs per node.
 */
public enum SequencerStrategy {

    /** A non-fair {@code ReentrantLock}: the default. */
    LOCK(LockSequencer::new),

    /** The object monitor. */
    SYNCHRONIZED(SynchronizedSequencer::new),

    /** Lock-free compare-and-set on one packed {@code AtomicLong}. */
    CAS(CasSequencer::new);

    private final Function<Timeline, Sequencer> factory;

    SequencerStrategy(Function<Timeline, Sequencer> factory) {
        this.factory = factory;
    }

    Sequencer create(Timeline timeline) {
        return factory.apply(timeline);
    }
}
