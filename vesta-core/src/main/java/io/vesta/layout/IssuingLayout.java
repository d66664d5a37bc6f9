package io.vesta.layout;

import io.vesta.GenMethod;
import io.vesta.IdType;

import java.time.Instant;

import static io.vesta.SettingNames.kebab;

/**
 * Everything of a generator's settings that decides which 64-bit ID an instant, a sequence number and a machine ID
 * become: version, type, gen-method and epoch. A restart mark records the one it was written under.
 *
 * <p>When two layouts can make the same ID for the same machine ID ({@link #canRepeatIdsOf}): an ID is
 * {@code version | type | genMethod | time | seq | machine} from bit 63 down. Version, type and gen-method are the
 * four bits above the time field ({@link #highBits()}); two layouts whose four bits differ never make the same ID,
 * whatever their epochs and whenever they run. With the same four bits the type is the same, so are the widths and
 * unit of the time and seq fields, and the IDs of one machine ID are equal exactly when the time field and the seq
 * are: the layouts collide exactly when the time-field values they use overlap (every unit starts at seq 0).
 * The epoch only decides which instant a time-field value stands for: unit {@code t} is the instant
 * {@code epoch + t * unit} in each. So a later epoch issues again, from any given instant, the time-field values an
 * earlier epoch issued {@code newEpoch - oldEpoch} before; an earlier epoch never reaches back to them.
 */
public record IssuingLayout(long version, IdType type, GenMethod genMethod, Instant epoch) {

    public IssuingLayout {
        IdCodec.check("version", version, 0, IdLayout.MAX_VERSION);
        if (type == null || genMethod == null || epoch == null) {
            throw new IllegalArgumentException("type, genMethod and epoch must not be null");
        }
    }

    /** Version, type and gen-method as they stand in bits 60-63 of every ID of this layout, shifted down to 0-3. */
    public long highBits() {
        return (version << 3) | (type.code() << 2) | genMethod.code();
    }

    /** Whether IDs of this layout and of {@code other} can ever be equal for one machine ID: the same {@link #highBits()}. */
    public boolean canRepeatIdsOf(IssuingLayout other) {
        return highBits() == other.highBits();
    }

    public IdLayout idLayout() {
        return IdLayout.of(type);
    }

    public long unitMillis() {
        return idLayout().unitMillis();
    }

    /** The time-field value of the unit that holds {@code millis} (Unix ms): negative before the epoch. */
    public long unitOf(long millis) {
        return Math.floorDiv(millis - epoch.toEpochMilli(), unitMillis());
    }

    /** The instant (Unix ms) at which time-field value {@code unit} begins. */
    public long startOf(long unit) {
        return epoch.toEpochMilli() + unit * unitMillis();
    }

    /**
     * The last time-field value used by IDs issued strictly before {@code markMillis} (a restart mark): negative when the
     * mark lies at or before the epoch, so that no unit was used.
     */
    public long lastUnitBefore(long markMillis) {
        return markMillis <= epoch.toEpochMilli() ? -1 : unitOf(markMillis - 1);
    }

    /**
     * The mark, in this layout's clock, that bounds what {@code earlier} issued before {@code earlierMark}: the start of
     * the first time-field value after the last one it used. Both layouts must have the same {@link #highBits()}.
     */
    public long markCovering(IssuingLayout earlier, long earlierMark) {
        if (!canRepeatIdsOf(earlier)) {
            throw new IllegalArgumentException(earlier + " and " + this + " never make the same ID");
        }
        if (earlier.epoch.equals(epoch)) {
            return earlierMark;
        }
        return startOf(earlier.lastUnitBefore(earlierMark) + 1);
    }

    /** The last instant the time field can hold: IDs are refused after it. */
    public Instant lastRepresentable() {
        return new IdCodec(epoch).lastRepresentable(type);
    }

    /** As the {@code vesta.*} settings spell it. */
    @Override
    public String toString() {
        return "version " + version + ", type " + kebab(type) + ", gen-method " + kebab(genMethod) + ", epoch " + epoch;
    }
}
