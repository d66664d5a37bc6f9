package io.vesta.sequence;

import io.vesta.ClockMovedBackwardsException;
import io.vesta.layout.IdLayout;
import io.vesta.machine.MachineIdBlock;
import io.vesta.machine.MachineIdLease;
import io.vesta.machine.MachineIdProvider;
import io.vesta.time.TimeSource;
import io.vesta.time.TimestampStore;

import java.time.Duration;
import java.time.Instant;
import java.util.OptionalLong;

/**
 * The generator of one block of machine IDs: hands out packed slots, unique and strictly increasing, which the caller
 * turns into IDs ({@link IdLayout#fromSlot}). A slot is {@code (time << seqBits | seq) << blockBits | offset}: the
 * time, the sequence number and the offset of the machine ID in the block, in the order IDs of the block sort in.
 * For a single machine ID ({@code blockBits} 0) it is the packed {@code (time << seqBits) | seq} of
 * {@link IdLayout#fromTimeSeq}. It is the one public type of this package with its choice of guard
 * ({@link SequencerStrategy}) and its counts ({@link GeneratorCounters}); how the unit/slot state is guarded and how the
 * clock is read, waited for and persisted are its parts, and stay inside.
 *
 * <p>In a unit whose slots are used up it waits for the next unit; it never reuses a slot and never borrows
 * from a unit the clock has not reached. Thread-safe.
 */
public final class TimeSeqGenerator {

    private final Timeline timeline;
    private final Sequencer sequencer;
    private final MachineIdBlock block;

    private TimeSeqGenerator(Timeline timeline, SequencerStrategy strategy, MachineIdBlock block) {
        this.timeline = timeline;
        this.block = block;
        this.sequencer = strategy.create(timeline, block.bits());
    }

    /**
     * A generator for {@code block}, which {@code provider} has acquired. It resumes after the higher of the
     * store's mark and the provider's {@link MachineIdProvider#notBefore()}; when the clock is behind that mark by
     * no more than one persist step (a restart right after a crash) this waits for it to pass the mark.
     *
     * @param store may be null; then nothing is persisted
     * @param persistStep how far ahead of the issued time the stored mark is pushed each time it is written
     * @throws IllegalStateException if a mark lies beyond the last time the layout can represent
     */
    public static TimeSeqGenerator start(SequencerStrategy strategy, TimeSource timeSource, IdLayout layout, Instant epoch,
            Duration maxBackwardWait, TimestampStore store, Duration persistStep, MachineIdBlock block,
            MachineIdProvider provider) {
        return start(strategy, timeSource, layout, epoch, maxBackwardWait, store, persistStep, block, provider.lease(),
                provider.notBefore(), provider.describe());
    }

    /**
     * A generator for {@code block} under {@code lease}, checked before every ID, whose IDs come after
     * {@code notBefore} (the mark of whoever held the block before; {@code source} names it in messages): the same
     * start as {@link #start(SequencerStrategy, TimeSource, IdLayout, Instant, Duration, TimestampStore, Duration,
     * MachineIdBlock, MachineIdProvider)}, for a block a provider claimed after it lost the one it acquired. The
     * sequence starts fresh: nothing is shared with a generator of another block.
     */
    public static TimeSeqGenerator start(SequencerStrategy strategy, TimeSource timeSource, IdLayout layout, Instant epoch,
            Duration maxBackwardWait, TimestampStore store, Duration persistStep, MachineIdBlock block,
            MachineIdLease lease, OptionalLong notBefore, String source) {
        Timeline timeline = new Timeline(timeSource, layout, epoch, maxBackwardWait, store, persistStep, block,
                lease, notBefore.isPresent() ? notBefore.getAsLong() : null, source);
        timeline.awaitRestartMark();
        return new TimeSeqGenerator(timeline, strategy, block);
    }

    /** The next packed slot. */
    public long next() {
        return sequencer.reserve(1);
    }

    /**
     * Reserves consecutive slots in one unit and returns the first, packed. It grants
     * {@code min(count, maxSlot - firstSlot + 1)} slots ({@link #granted}): the whole request when the unit has
     * room, else the rest of the unit, and the caller asks again for the remainder.
     */
    public long reserve(int count) {
        return sequencer.reserve(count);
    }

    /** How many slots {@link #reserve(int)} granted when it returned {@code packedStart}. */
    public int granted(long packedStart, int count) {
        long maxSlot = sequencer.maxSlot;
        return (int) Math.min(count, maxSlot - (packedStart & maxSlot) + 1);
    }

    /** The machine IDs this generator issues under. */
    public MachineIdBlock block() {
        return block;
    }

    /** How the unit/seq state is guarded. */
    public SequencerStrategy strategy() {
        return sequencer.strategy();
    }

    /** How many slots this generator has handed out. Never waits for a caller. */
    public long issued() {
        return sequencer.issued();
    }

    /** The start of the unit of the last issued value (or the restored mark's unit), or null if there is none. */
    public Instant lastTime() {
        long unit = sequencer.lastUnit();
        return unit < 0 ? null : Instant.ofEpochMilli(timeline.startOf(unit));
    }

    /** How far the clock is behind the last issued unit; zero when it is not behind. Never waits for a caller. */
    public Duration clockBehind() {
        long unit = sequencer.lastUnit();
        return unit < 0 ? Duration.ZERO : Duration.ofMillis(Math.max(0, timeline.millisBehind(unit)));
    }

    /**
     * The {@link ClockMovedBackwardsException} a call would get now, or null when the clock is not behind by more than
     * {@link #maxBackwardWait()}: a step back behind issued IDs, or a clock that has not reached the time reserved
     * before this generator started ({@link ClockMovedBackwardsException#reservedBy()}). Never waits for a caller.
     */
    public ClockMovedBackwardsException clockRefusal() {
        long unit = sequencer.lastUnit();
        return unit < 0 ? null : timeline.refusalNow(unit);
    }

    /** What this generator counted so far, each count read once. Never waits for a caller. */
    public GeneratorCounters counters() {
        return new GeneratorCounters(issued(), exhaustedWaits(), exhaustedWaitTime(), clockBackwardSteps());
    }

    /** How many times a used-up unit made a caller wait for the next one. */
    public long exhaustedWaits() {
        return timeline.exhaustedWaits();
    }

    /** The total time callers spent waiting for a new unit after one was used up. */
    public Duration exhaustedWaitTime() {
        return timeline.exhaustedWaitTime();
    }

    /** How many times the clock was seen behind the last issued unit. */
    public long clockBackwardSteps() {
        return timeline.clockBackwardSteps();
    }

    /** The largest step back of the clock that is waited out rather than refused. */
    public Duration maxBackwardWait() {
        return timeline.maxBackwardWait();
    }

    /** Whether {@link #close()} was called. */
    public boolean isClosed() {
        return timeline.isClosed();
    }

    /**
     * Stops handing out values (every later call throws {@link IllegalStateException}) and writes the exact
     * high-water mark after the last admitted unit. Does not close the store. Safe to call more than once.
     */
    public void close() {
        timeline.close();
    }
}
