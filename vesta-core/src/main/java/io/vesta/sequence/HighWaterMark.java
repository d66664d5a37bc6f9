package io.vesta.sequence;

import io.vesta.layout.IdLayout;
import io.vesta.machine.MachineIdBlock;
import io.vesta.machine.MachineIdLease;
import io.vesta.time.TimestampStore;

import java.time.Instant;
import java.util.OptionalLong;

/**
 * The high-water mark of one generator, apart from the clock it waits on ({@link Timeline}): the mark it restarted
 * after (the store's or the previous holder's, checked to be representable) and the unit it starts in, the units
 * admitted since, kept covered by the persisted mark, and the exact mark written when it closes. Admitting a unit and
 * closing share this object's monitor, so a unit is admitted either before close takes the exact mark or not at all.
 */
final class HighWaterMark {

    private final IdLayout layout;
    private final long epochMillis;
    private final long unitMillis;
    private final TimestampStore store;
    private final long persistStepMillis;
    private final MachineIdLease lease;
    private final MachineIdBlock block;

    /** Every issued unit starts before this; {@code Long.MAX_VALUE} without a store. */
    private volatile long reservedUntil;
    /** The highest unit admitted; guarded by this, like every admission. */
    private long highestAdmitted = Long.MIN_VALUE;
    /** Set once by {@link #close()}; after that no unit is admitted and no ID issued. */
    private volatile boolean closed;
    private final long startUnit;
    private final long restartMark;
    /** Who reserved the time up to {@link #restartMark}, for messages; null without a mark. */
    private final String restartMarkSource;
    /** Whether {@link #restartMark} is the store's (else the provider's). */
    private final boolean restartMarkFromStore;

    /**
     * @param store may be null; then nothing is persisted
     * @param persistStepMillis how far ahead of the issued time the stored mark is pushed each time it is written, at
     *        least one unit
     * @param block the machine IDs the generator issues under, for messages
     * @param lease told of every unit admitted
     * @param notBefore a mark from elsewhere (a previous owner of the machine ID), Unix ms, or null
     * @param notBeforeSource where {@code notBefore} came from, for messages
     * @throws IllegalStateException if a mark lies beyond the last time the layout can represent
     */
    HighWaterMark(IdLayout layout, long epochMillis, TimestampStore store, long persistStepMillis, MachineIdBlock block,
            MachineIdLease lease, Long notBefore, String notBeforeSource) {
        this.layout = layout;
        this.epochMillis = epochMillis;
        this.unitMillis = layout.unitMillis();
        this.store = store;
        this.persistStepMillis = persistStepMillis;
        this.block = block;
        this.lease = lease;
        OptionalLong stored = store == null ? OptionalLong.empty() : store.load();
        this.reservedUntil = store == null ? Long.MAX_VALUE : stored.orElse(Long.MIN_VALUE);
        if (stored.isPresent()) {
            checkRepresentable(stored.getAsLong(), "the timestamp store " + store);
        }
        if (notBefore != null) {
            checkRepresentable(notBefore, "the machine-ID provider " + notBeforeSource);
        }
        long mark = Math.max(stored.orElse(Long.MIN_VALUE), notBefore == null ? Long.MIN_VALUE : notBefore);
        this.restartMark = mark;
        boolean fromProvider = notBefore != null && notBefore >= stored.orElse(Long.MIN_VALUE);
        this.restartMarkFromStore = mark != Long.MIN_VALUE && !fromProvider;
        this.restartMarkSource = mark == Long.MIN_VALUE ? null : fromProvider
                ? "the previous holder of " + block.describe() + " (this node's previous run, or another node) may have"
                        + " issued IDs: the high-water mark of its lease, read from " + notBeforeSource
                : "the previous run under " + block.describe() + " may have issued IDs: the high-water mark it saved in"
                        + " the timestamp store " + store + " (saved up to one persist step ahead of the IDs issued)";
        // Every unit issued before the mark starts strictly before it, so those units count as used up.
        // A mark at or before the epoch covers no unit (and subtracting from a sentinel such as Long.MIN_VALUE + 1
        // would overflow).
        this.startUnit = mark <= epochMillis ? -1 : Math.floorDiv(mark - 1 - epochMillis, unitMillis);
    }

    /**
     * A mark at or past the end of the time field leaves no unit to issue in; worse, a sequencer that packs the
     * unit with the sequence (CAS) would overflow into the other fields. Such a mark is a corrupt file or a
     * sentinel, never a time IDs were issued at, and is refused before anything is issued.
     */
    private void checkRepresentable(long mark, String source) {
        long lastUnitStart = epochMillis + layout.maxTime() * unitMillis;
        if (mark > lastUnitStart) {
            throw new IllegalStateException("The high-water mark " + mark + " (" + Instant.ofEpochMilli(mark) + ") read from "
                    + source + " lies beyond the last time " + layout.type() + " IDs can carry with the epoch "
                    + Instant.ofEpochMilli(epochMillis) + " (" + Instant.ofEpochMilli(lastUnitStart) + "): no ID could be"
                    + " issued after it. The mark is corrupt; correct it only if you are sure no ID was issued after the"
                    + " clock's current time.");
        }
    }

    /**
     * The unit the generator starts in, as if it were used up: -1 on a first start, the last unit covered
     * by the stored mark after a restart. A sequencer issues only in later units.
     */
    long startUnit() {
        return startUnit;
    }

    /** The mark the generator restarted after, Unix ms: the higher of the store's and the provider's; or {@code Long.MIN_VALUE}. */
    long restartMark() {
        return restartMark;
    }

    /** Who reserved the time up to {@link #restartMark()}, for messages; null without a mark. */
    String restartMarkSource() {
        return restartMarkSource;
    }

    /** Whether {@link #restartMark()} is the store's (else the provider's). */
    boolean restartMarkFromStore() {
        return restartMarkFromStore;
    }

    /** How far ahead of the issued time the stored mark is pushed each time it is written. */
    long persistStepMillis() {
        return persistStepMillis;
    }

    /**
     * Called before the first ID of a new unit is issued: checks the time field has room and that the
     * persisted mark covers the unit, writing a new mark first if it does not.
     *
     * <p>Synchronized with {@link #close()}: a unit is admitted either before close takes the exact mark, and
     * then the mark covers it, or not at all. Without that, a caller could admit a unit after close had read the
     * highest one and still see the old, higher reservation, and a generator rebuilt on the same store would
     * repeat that caller's IDs. It runs once per unit, so the monitor costs nothing per ID.
     */
    synchronized void admit(long unit) {
        if (closed) {
            throw closedException();
        }
        if (unit > layout.maxTime()) {
            throw new IllegalStateException("The " + layout.type() + " time field is full: it holds "
                    + layout.maxTime() + " units after the epoch " + Instant.ofEpochMilli(epochMillis)
                    + ", up to " + Instant.ofEpochMilli(startOf(layout.maxTime() + 1) - 1)
                    + "; new deployments need a later epoch");
        }
        if (unit > highestAdmitted) {
            highestAdmitted = unit;
        }
        lease.issuing(startOf(unit));
        if (store != null && startOf(unit) >= reservedUntil) {
            long mark = startOf(unit) + persistStepMillis;
            store.save(mark);
            reservedUntil = mark;
        }
    }

    /**
     * Ends the timeline: from now on no unit is admitted and no ID issued, and the exact mark after the last
     * admitted unit is written, so that a clean restart need not wait out the rest of the persist step. A call
     * that admitted its unit before this issues at most up to that unit, which the exact mark covers.
     */
    synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (store == null || highestAdmitted == Long.MIN_VALUE) {
            return;
        }
        long mark = startOf(highestAdmitted + 1);
        if (mark < reservedUntil) {
            store.save(mark);
            reservedUntil = mark;
        }
    }

    boolean isClosed() {
        return closed;
    }

    IllegalStateException closedException() {
        return new IllegalStateException("The generator of " + block.describe() + " was closed; no ID is issued after"
                + " close(). Build a new one.");
    }

    private long startOf(long unit) {
        return epochMillis + unit * unitMillis;
    }
}
