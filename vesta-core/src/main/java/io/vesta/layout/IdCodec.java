package io.vesta.layout;

import io.vesta.Id;
import io.vesta.IdType;

import java.time.Instant;
import java.time.OffsetDateTime;

/**
 * Packs and unpacks IDs of both layouts against one epoch, range-checking every field. Thread-safe and
 * stateless apart from the epoch.
 */
public final class IdCodec {

    /** Vesta's own epoch as the original wrote it, so IDs made by the original Vesta decode the same. */
    public static final String DEFAULT_EPOCH_TEXT = "2015-01-01T00:00:00+08:00";

    /** {@link #DEFAULT_EPOCH_TEXT} as an instant: 1420041600000 ms after the Unix epoch. */
    public static final Instant DEFAULT_EPOCH = OffsetDateTime.parse(DEFAULT_EPOCH_TEXT).toInstant();

    private final Instant epoch;
    private final long epochMillis;

    public IdCodec(Instant epoch) {
        if (epoch == null) {
            throw new IllegalArgumentException("epoch must not be null");
        }
        this.epoch = epoch;
        this.epochMillis = epoch.toEpochMilli();
    }

    public Instant epoch() {
        return epoch;
    }

    public long epochMillis() {
        return epochMillis;
    }

    /** Builds an ID from its fields, checking each against the layout of {@code type}. */
    public long makeId(long version, long type, long genMethod, long time, long seq, long machine) {
        check("version", version, 0, IdLayout.MAX_VERSION);
        check("type", type, 0, IdLayout.MAX_TYPE);
        IdLayout layout = IdLayout.of(IdType.ofCode(type));
        check("genMethod", genMethod, 0, IdLayout.MAX_GEN_METHOD);
        check("time", time, 0, layout.maxTime());
        check("seq", seq, 0, layout.maxSeq());
        check("machine", machine, 0, IdLayout.MAX_MACHINE);
        return IdLayout.fromTimeSeq((time << layout.seqBits()) | seq, layout.constantBits(version, genMethod, machine));
    }

    /** Decodes any 64-bit value: every bit pattern is a well-formed ID of one of the two layouts. */
    public Id expId(long id) {
        IdLayout layout = IdLayout.of(id);
        // Unsigned shifts throughout: a version-1 ID is a negative long.
        return new Id(
                id & IdLayout.MAX_MACHINE,
                (id >>> layout.seqShift()) & layout.maxSeq(),
                (id >>> layout.timeShift()) & layout.maxTime(),
                (id >>> IdLayout.GEN_METHOD_SHIFT) & IdLayout.MAX_GEN_METHOD,
                (id >>> IdLayout.TYPE_SHIFT) & IdLayout.MAX_TYPE,
                (id >>> IdLayout.VERSION_SHIFT) & IdLayout.MAX_VERSION);
    }

    /** The instant at which time unit {@code time} of {@code type} begins. */
    public Instant transTime(IdType type, long time) {
        IdLayout layout = IdLayout.of(type);
        check("time", time, 0, layout.maxTime());
        return Instant.ofEpochMilli(epochMillis + time * layout.unitMillis());
    }

    /** The time field of {@code type} for a wall-clock instant: may be negative or past the field's range. */
    public long timeOf(IdType type, long epochMillis) {
        return Math.floorDiv(epochMillis - this.epochMillis, IdLayout.of(type).unitMillis());
    }

    /** The last instant {@code type} can represent with this epoch. */
    public Instant lastRepresentable(IdType type) {
        IdLayout layout = IdLayout.of(type);
        return Instant.ofEpochMilli(epochMillis + (layout.maxTime() + 1) * layout.unitMillis() - 1);
    }

    static void check(String field, long value, long min, long max) {
        if (value < min || value > max) {
            throw new IdFieldOutOfRangeException(field, value, min, max);
        }
    }
}
