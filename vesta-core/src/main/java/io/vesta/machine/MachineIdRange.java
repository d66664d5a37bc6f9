package io.vesta.machine;

import io.vesta.InvalidSettingException;
import io.vesta.layout.IdLayout;

/**
 * An inclusive range of machine IDs. Embedded nodes and central servers draw from disjoint ranges so an ID
 * tells which kind of node made it and the two never collide.
 */
public record MachineIdRange(long min, long max) {

    /** The default range of embedded nodes: 0-923. */
    public static final MachineIdRange EMBEDDED = new MachineIdRange(0, 923);

    /** The default range of central and REST servers: 924-1023. */
    public static final MachineIdRange SERVER = new MachineIdRange(924, IdLayout.MAX_MACHINE);

    /**
     * @throws InvalidSettingException naming {@code machineIdRange.min} or {@code machineIdRange.max} when a bound
     *         is outside [0, 1023] or {@code max < min}; {@link #of} names the settings the user typed
     */
    public MachineIdRange {
        requireValid("machineIdRange", min, max);
    }

    /**
     * The range {@code [min, max]}, checked under the name of the setting that gave it.
     * @param setting the range's full setting name, such as {@code vesta.machine-id.embedded-range}; its bounds are
     *        named {@code <setting>.min} and {@code <setting>.max}
     * @throws InvalidSettingException naming the bound that is out of range, its value and the allowed range
     */
    public static MachineIdRange of(String setting, long min, long max) {
        requireValid(setting, min, max);
        return new MachineIdRange(min, max);
    }

    private static void requireValid(String setting, long min, long max) {
        InvalidSettingException.requireInRange(setting + ".min", min, 0, IdLayout.MAX_MACHINE);
        if (max < min || max > IdLayout.MAX_MACHINE) {
            throw new InvalidSettingException(setting + ".max", max, "a value in [" + min + ", " + IdLayout.MAX_MACHINE
                    + "]: not below " + setting + ".min (" + min + ")");
        }
    }

    /** Whether {@code machineId} lies in the range, both ends included. */
    public boolean contains(long machineId) {
        return machineId >= min && machineId <= max;
    }

    /** How many machine IDs the range holds. */
    public long size() {
        return max - min + 1;
    }

    /**
     * Returns {@code machineId} if it is in the range.
     * @param setting the setting that gave the ID (such as {@code vesta.machine-id.value}), or where it was read
     * @throws MachineIdOutOfRangeException naming {@code setting}, the value and the range
     */
    public long check(String setting, long machineId) {
        if (!contains(machineId)) {
            throw new MachineIdOutOfRangeException(setting, machineId, this);
        }
        return machineId;
    }

    @Override
    public String toString() {
        return min + "-" + max;
    }
}
