package io.vesta.machine;

import io.vesta.layout.IdLayout;

/**
 * The consecutive machine IDs {@code [first, first + size)} one node issues under. A node that holds a block of
 * {@code size} IDs issues {@code size} times the ceiling of one: the machine field is the lowest of an ID, so its
 * generator counts (time, seq, offset in the block) and every ID still carries a machine ID the node holds. A
 * single machine ID is a block of one.
 *
 * @param first the block's first machine ID
 * @param size how many machine IDs it holds: a power of two in [1, {@link MachineIdRange#MAX_BLOCK_SIZE}]
 */
public record MachineIdBlock(long first, int size) {

    /**
     * @throws IllegalArgumentException if the size is not a power of two in [1, {@link MachineIdRange#MAX_BLOCK_SIZE}]
     *         or the block does not lie in [0, 1023]
     */
    public MachineIdBlock {
        if (!MachineIdRange.isBlockSize(size)) {
            throw new IllegalArgumentException("size must be a power of two in [1, " + MachineIdRange.MAX_BLOCK_SIZE
                    + "], was " + size);
        }
        if (first < 0 || first + size - 1 > IdLayout.MAX_MACHINE) {
            throw new IllegalArgumentException("a block of " + size + " from machine ID " + first + " does not lie in [0, "
                    + IdLayout.MAX_MACHINE + "]");
        }
    }

    /** The block of the single machine ID {@code machineId}. */
    public static MachineIdBlock of(long machineId) {
        return new MachineIdBlock(machineId, 1);
    }

    /** The block's last machine ID. */
    public long last() {
        return first + size - 1;
    }

    /** {@code log2(size)}: how many low bits of a generator's counter pick the machine ID in the block. */
    public int bits() {
        return Integer.numberOfTrailingZeros(size);
    }

    /** For messages: {@code "machine ID 924"}, or {@code "machine IDs 924-931"}. */
    public String describe() {
        return size == 1 ? "machine ID " + first : "machine IDs " + this;
    }

    /** {@code "924"}, or {@code "924-931"}. */
    @Override
    public String toString() {
        return size == 1 ? Long.toString(first) : first + "-" + last();
    }
}
