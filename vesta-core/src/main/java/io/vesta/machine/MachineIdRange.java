package io.vesta.machine;

import io.vesta.InvalidSettingException;
import io.vesta.layout.IdLayout;

/**
 * An inclusive range of machine IDs, and the order in which a strategy that picks a block for the node (the leased
 * stores' claim walk, the IP list) hands its blocks out. Embedded nodes and central servers draw from disjoint ranges
 * so an ID tells which kind of node made it and the two never collide; embedded nodes count up from 0 and servers
 * down from 1023, so that the boundary between the two ranges can move without stranding a node (see
 * docs/machine-ids.md, "Moving the range boundary"). The order is a preference only: which machine IDs a node may
 * take is the range's bounds, and blocks are aligned from {@link #min()} whichever the order.
 */
public record MachineIdRange(long min, long max, Order order) {

    /** The default range of embedded nodes: 0-923, handed out from the bottom up. */
    public static final MachineIdRange EMBEDDED = new MachineIdRange(0, 923);

    /** The default range of central and REST servers: 924-1023, handed out from the top down. */
    public static final MachineIdRange SERVER = new MachineIdRange(924, IdLayout.MAX_MACHINE, Order.DESCENDING);

    /** Which of a range's aligned blocks a strategy offers first. */
    public enum Order {
        /** The lowest block first: embedded nodes, counting up from 0. */
        ASCENDING,
        /** The highest whole block first: servers, counting down from 1023. */
        DESCENDING
    }

    /** The largest block of machine IDs one node may hold. */
    public static final int MAX_BLOCK_SIZE = 64;

    /** The block sizes that may be configured, as {@link InvalidSettingException#allowed()} says them. */
    public static final String BLOCK_SIZES = "1, 2, 4, 8, 16, 32 or " + MAX_BLOCK_SIZE;

    /**
     * @throws InvalidSettingException naming {@code machineIdRange.min} or {@code machineIdRange.max} when a bound
     *         is outside [0, 1023] or {@code max < min}; {@link #of} names the settings the user typed
     */
    public MachineIdRange {
        requireValid("machineIdRange", min, max);
        if (order == null) {
            throw new IllegalArgumentException("A machine-ID range needs an order");
        }
    }

    /** The range {@code [min, max]}, its blocks handed out from the lowest up. */
    public MachineIdRange(long min, long max) {
        this(min, max, Order.ASCENDING);
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

    /** The same bounds, their blocks handed out in {@code order}. */
    public MachineIdRange inOrder(Order order) {
        return order == this.order ? this : new MachineIdRange(min, max, order);
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
        return checkBlock(setting, machineId, 1);
    }

    /** Whether {@code size} is a block size: a power of two in [1, {@link #MAX_BLOCK_SIZE}]. */
    public static boolean isBlockSize(long size) {
        return size >= 1 && size <= MAX_BLOCK_SIZE && Long.bitCount(size) == 1;
    }

    /**
     * {@code blockSize} when it is a power of two in [1, {@link #MAX_BLOCK_SIZE}].
     * @throws InvalidSettingException naming {@code setting}, the value and the sizes allowed otherwise
     */
    public static int requireBlockSize(String setting, int blockSize) {
        if (!isBlockSize(blockSize)) {
            throw new InvalidSettingException(setting, blockSize, BLOCK_SIZES, "is not a power of two in [1, "
                    + MAX_BLOCK_SIZE + "]");
        }
        return blockSize;
    }

    /**
     * How many blocks of {@code blockSize} the range holds. Blocks are aligned from the range's start: block {@code i}
     * is {@code [min + i * blockSize, min + (i + 1) * blockSize)}, and a remainder too short for a block is unused.
     */
    public long blocks(int blockSize) {
        return size() / blockSize;
    }

    /** The first machine ID of block {@code index} of {@code blockSize}; see {@link #blocks(int)}. */
    public long blockStart(long index, int blockSize) {
        return min + index * blockSize;
    }

    /**
     * The index of the block offered {@code rank}-th (from 0) in the range's {@link #order()}: {@code rank} itself
     * when ascending, the top whole block ({@code blocks(blockSize) - 1}) first when descending.
     */
    public long blockInOrder(long rank, int blockSize) {
        return order == Order.ASCENDING ? rank : blocks(blockSize) - 1 - rank;
    }

    /** Which block of {@code blockSize} holds {@code machineId}: its index, as {@link #blockStart} takes it. */
    public long blockIndex(long machineId, int blockSize) {
        return (machineId - min) / blockSize;
    }

    /** Whether {@code first} starts one of the range's aligned blocks of {@code blockSize} (see {@link #blocks(int)}). */
    public boolean holdsBlock(long first, int blockSize) {
        return first >= min && (first - min) % blockSize == 0 && first - min < blocks(blockSize) * blockSize;
    }

    /**
     * Returns {@code first} if it starts one of the range's aligned blocks of {@code blockSize}.
     * @param setting the setting that gave the ID (such as {@code vesta.machine-id.value}), or where it was read
     * @throws MachineIdOutOfRangeException naming {@code setting}, the value, the range and the block size
     */
    public long checkBlock(String setting, long first, int blockSize) {
        if (!holdsBlock(first, blockSize)) {
            throw new MachineIdOutOfRangeException(setting, first, this, blockSize);
        }
        return first;
    }

    /**
     * What a block's first machine ID may be, for messages: {@code "a machine ID in [0, 923]"}, or {@code "the first
     * machine ID of one of the 12 blocks of 8 aligned from 924 in [924, 1023]: 924, 932, ..., 1012"}.
     */
    public String describeBlockStarts(int blockSize) {
        if (blockSize == 1) {
            return "a machine ID in [" + min + ", " + max + "]";
        }
        long blocks = blocks(blockSize);
        if (blocks == 0) {
            return "none: a block of " + blockSize + " does not fit in [" + min + ", " + max + "], which holds " + size()
                    + " machine IDs";
        }
        String starts = blocks == 1 ? Long.toString(min) : blocks == 2 ? min + ", " + blockStart(1, blockSize)
                : min + ", " + blockStart(1, blockSize) + ", ..., " + blockStart(blocks - 1, blockSize);
        return "the first machine ID of one of the " + blocks + " blocks of " + blockSize + " aligned from " + min + " in ["
                + min + ", " + max + "]: " + starts;
    }

    @Override
    public String toString() {
        return min + "-" + max;
    }
}
