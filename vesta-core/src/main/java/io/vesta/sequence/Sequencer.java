package io.vesta.sequence;

/**
 * The unit/slot state of one generator, guarded as its {@link SequencerStrategy} says. It hands out packed
 * {@code (unit << slotBits) | slot} values and leaves the clock to its {@link Timeline}. A unit has
 * {@code blockSize << seqBits} slots: slot {@code s} is sequence number {@code s >> blockBits} under the block's
 * machine ID at offset {@code s & (blockSize - 1)}, so for a single machine ID a slot is the sequence number.
 */
abstract class Sequencer {

    protected final Timeline timeline;
    /** {@code seqBits + blockBits}: how far the unit is shifted in a packed value. */
    protected final int slotBits;
    /** The last slot of a unit: {@code (blockSize << seqBits) - 1}. */
    protected final long maxSlot;

    protected Sequencer(Timeline timeline, int blockBits) {
        this.timeline = timeline;
        this.slotBits = timeline.layout().seqBits() + blockBits;
        this.maxSlot = (1L << slotBits) - 1;
    }

    /**
     * Reserves consecutive slots in one unit and returns the first, packed; see {@link TimeSeqGenerator#reserve(int)}.
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
