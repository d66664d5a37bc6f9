package io.vesta.sequence;

import java.time.Duration;
import java.time.Instant;

/**
 * The state of one generator (one machine ID): the current time unit and the last sequence number used in
 * it. It hands out packed {@code (time << seqBits) | seq} values, which the caller shifts into an ID.
 *
 * <p>In a unit whose sequence is used up it waits for the next unit and starts that unit at 0; it never
 * reuses a number and never borrows from a unit the clock has not reached.
 */
public abstract class Sequencer {

    protected final Timeline timeline;
    protected final int seqBits;
    protected final long maxSeq;

    protected Sequencer(Timeline timeline) {
        this.timeline = timeline;
        this.seqBits = timeline.layout().seqBits();
        this.maxSeq = timeline.layout().maxSeq();
    }

    /** The next packed time-seq. */
    public final long next() {
        return reserve(1);
    }

    /**
     * Reserves consecutive sequence numbers in one unit and returns the first, packed. It grants
     * {@code min(count, maxSeq - firstSeq + 1)} numbers: the whole request when the unit has room, else the
     * rest of the unit, and the caller asks again for the remainder.
     */
    public abstract long reserve(int count);

    /**
     * The unit of the last issued ID, or a value below 0 if none was issued and no mark was restored. Never
     * waits for a caller: health checks and metrics read it while callers may be waiting for the clock.
     */
    protected abstract long lastUnit();

    /** How many IDs this sequencer has issued. Never waits for a caller, like {@link #lastUnit()}. */
    public abstract long issued();

    public abstract SequencerStrategy strategy();

    /** How many numbers {@link #reserve(int)} granted when it returned {@code packedStart}. */
    public final int granted(long packedStart, int count) {
        return (int) Math.min(count, maxSeq - (packedStart & maxSeq) + 1);
    }

    /** The start of the unit of the last issued ID (or the restored mark's unit), or null if there is none. */
    public Instant lastTime() {
        long unit = lastUnit();
        return unit < 0 ? null : Instant.ofEpochMilli(timeline.startOf(unit));
    }

    /** How far the clock is behind the last issued unit; zero when it is not behind. */
    public Duration clockBehind() {
        long unit = lastUnit();
        return unit < 0 ? Duration.ZERO : Duration.ofMillis(Math.max(0, timeline.millisBehind(unit)));
    }

    public Timeline timeline() {
        return timeline;
    }
}
