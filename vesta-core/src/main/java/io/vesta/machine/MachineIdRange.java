package io.vesta.machine;

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

    public MachineIdRange {
        if (min < 0 || min > IdLayout.MAX_MACHINE) {
            throw new IllegalArgumentException("machine-ID range start must be in [0, " + IdLayout.MAX_MACHINE
                    + "], was " + min);
        }
        if (max < min || max > IdLayout.MAX_MACHINE) {
            throw new IllegalArgumentException("machine-ID range end must be in [" + min + ", "
                    + IdLayout.MAX_MACHINE + "] (at least the range start " + min + "), was " + max);
        }
    }

    public boolean contains(long machineId) {
        return machineId >= min && machineId <= max;
    }

    /** How many machine IDs the range holds. */
    public long size() {
        return max - min + 1;
    }

    /**
     * Returns {@code machineId} if it is in the range.
     * @throws IllegalArgumentException naming {@code name}, the value and the range
     */
    public long check(String name, long machineId) {
        if (!contains(machineId)) {
            throw new IllegalArgumentException(name + " must be in [" + min + ", " + max + "], was " + machineId);
        }
        return machineId;
    }

    @Override
    public String toString() {
        return min + "-" + max;
    }
}
