package io.vesta.sequence;

/**
 * The unit/seq state of one generator, guarded as its {@link SequencerStrategy} says. It hands out packed
 * {@code (time << seqBits) | seq} values and leaves the clock to its {@link Timeline}.
 */
abstract class Sequencer {

    protected final Timeline timeline;
    protected final int seqBits;
    protected final long maxSeq;

    protected Sequencer(Timeline timeline) {
        this.timeline = timeline;
        this.seqBits = timeline.layout().seqBits();
        this.maxSeq = timeline.layout().maxSeq();
    }

    /**
     * Reserves consecutive sequence numbers in one unit and returns the first, packed; see
     * {@link TimeSeqGenerator#reserve(int)}.
     */
    abstract long reserve(int count);

    /**
     * The unit of the last issued ID, or a value below 0 if none was issued and no mark was restored. Never
     * waits for a caller: health checks and metrics read it while callers may be waiting for the clock.
     */
    abstract long lastUnit();

    /** How many IDs this sequencer has issued. Never waits for a caller, like {@link #lastUnit()}. */
    abstract long issued();

    abstract SequencerStrategy strategy();
}
