package io.vesta.layout;

import io.vesta.IdType;
import io.vesta.InvalidSettingException;

import java.time.Instant;

import static io.vesta.SettingNames.kebab;

/**
 * The bit layout of one {@link IdType}. Bit 0 is the least significant; fields from low to high:
 * machine (10 bits), seq, time, genMethod (2 bits), type (1 bit), version (1 bit).
 *
 * <pre>
 *              version type genMethod  time               seq                machine
 * MAX_PEAK        63    62    60-61    30-59 (30, s)      10-29 (20)         0-9 (10)
 * MIN_GRANULARITY 63    62    60-61    20-59 (40, ms)     10-19 (10)         0-9 (10)
 * </pre>
 *
 * <p>Seq and time are adjacent, so {@code (time << seqBits) | seq} is the middle of an ID shifted down by
 * {@link #MACHINE_BITS}: the generator works on that packed "time-seq" value and ORs in the constant fields.
 */
public final class IdLayout {

    public static final int MACHINE_BITS = 10;
    public static final int GEN_METHOD_BITS = 2;
    public static final int TYPE_BITS = 1;
    public static final int VERSION_BITS = 1;

    public static final int GEN_METHOD_SHIFT = 60;
    public static final int TYPE_SHIFT = 62;
    public static final int VERSION_SHIFT = 63;

    public static final long MAX_MACHINE = (1L << MACHINE_BITS) - 1;
    public static final long MAX_GEN_METHOD = (1L << GEN_METHOD_BITS) - 1;
    public static final long MAX_TYPE = (1L << TYPE_BITS) - 1;
    public static final long MAX_VERSION = (1L << VERSION_BITS) - 1;

    public static final IdLayout MAX_PEAK = new IdLayout(IdType.MAX_PEAK, 20, 30, 1000);
    public static final IdLayout MIN_GRANULARITY = new IdLayout(IdType.MIN_GRANULARITY, 10, 40, 1);

    private final IdType type;
    private final int seqBits;
    private final int timeBits;
    private final long unitMillis;
    private final long maxSeq;
    private final long maxTime;

    private IdLayout(IdType type, int seqBits, int timeBits, long unitMillis) {
        this.type = type;
        this.seqBits = seqBits;
        this.timeBits = timeBits;
        this.unitMillis = unitMillis;
        this.maxSeq = (1L << seqBits) - 1;
        this.maxTime = (1L << timeBits) - 1;
    }

    public static IdLayout of(IdType type) {
        return type == IdType.MAX_PEAK ? MAX_PEAK : MIN_GRANULARITY;
    }

    /** The layout an ID was made with, read from its type bit. */
    public static IdLayout of(long id) {
        return ((id >>> TYPE_SHIFT) & MAX_TYPE) == 0 ? MAX_PEAK : MIN_GRANULARITY;
    }

    public IdType type() {
        return type;
    }

    public int seqBits() {
        return seqBits;
    }

    public int timeBits() {
        return timeBits;
    }

    /** Milliseconds in one unit of the time field: 1000 or 1. */
    public long unitMillis() {
        return unitMillis;
    }

    public long maxSeq() {
        return maxSeq;
    }

    public long maxTime() {
        return maxTime;
    }

    /** IDs one machine ID can issue in one second at most. */
    public long ceilingPerSecond() {
        return (maxSeq + 1) * (1000 / unitMillis);
    }

    public int seqShift() {
        return MACHINE_BITS;
    }

    public int timeShift() {
        return MACHINE_BITS + seqBits;
    }

    /**
     * Refuses an epoch this layout cannot issue under at {@code now}: it must lie in the past, and close enough that the
     * time field still holds the current time. Compared as instants: subtracting a far epoch in milliseconds would
     * overflow and let it through.
     *
     * @param setting the epoch's setting, named in the refusal
     * @throws InvalidSettingException naming the setting, the epoch and the instants this layout allows
     */
    public void checkEpoch(String setting, Instant epoch, Instant now) {
        Instant earliest = now.minusMillis((maxTime + 1) * unitMillis).plusMillis(1);
        if (epoch.isAfter(now) || epoch.isBefore(earliest)) {
            throw new InvalidSettingException(setting, epoch, "an instant in [" + earliest + ", " + now + "] for type "
                    + kebab(type) + ": not in the future, and recent enough that its " + timeBits + "-bit time field of "
                    + unitMillis + " ms units still holds the current time",
                    epoch.isAfter(now) ? "is in the future" : "is too far in the past");
        }
    }

    /** The fields that do not change from one ID of a node to the next, in place. */
    public long constantBits(long version, long genMethod, long machine) {
        return (version << VERSION_SHIFT) | (type.code() << TYPE_SHIFT) | (genMethod << GEN_METHOD_SHIFT) | machine;
    }

    /** An ID from a packed {@code (time << seqBits) | seq} and the constant bits; no range checks. */
    public static long fromTimeSeq(long timeSeq, long constantBits) {
        return (timeSeq << MACHINE_BITS) | constantBits;
    }

    /**
     * An ID from a generator's slot {@code (time << seqBits | seq) << blockBits | offset} and the constant bits of the
     * block's first machine ID: the machine field is the first ID plus the offset. No range checks; the block must
     * lie in [0, {@link #MAX_MACHINE}], so the sum never carries out of the field. With {@code blockBits} 0 this is
     * {@link #fromTimeSeq}.
     */
    public static long fromSlot(long slot, int blockBits, long constantBits) {
        return (((slot >> blockBits) << MACHINE_BITS) | constantBits) + (slot & ((1L << blockBits) - 1));
    }

    @Override
    public String toString() {
        return type + " (" + timeBits + "-bit time in " + (unitMillis == 1 ? "ms" : "s") + ", " + seqBits + "-bit seq)";
    }
}
