package io.vesta.machine;

import io.vesta.InvalidSettingException;

/**
 * A machine ID that lies outside the range it must be drawn from. A provider knows only the setting that gave the
 * ID; the generator that asked for it knows which range setting and gen-method the range belongs to, and adds that
 * to its own report of the same fault.
 */
public final class MachineIdOutOfRangeException extends InvalidSettingException {

    private final long machineId;
    private final transient MachineIdRange range;
    private final int blockSize;

    public MachineIdOutOfRangeException(String setting, long machineId, MachineIdRange range) {
        this(setting, machineId, range, 1);
    }

    /** A block's first machine ID that does not start one of the range's aligned blocks of {@code blockSize}. */
    public MachineIdOutOfRangeException(String setting, long machineId, MachineIdRange range, int blockSize) {
        super(setting, machineId, range.describeBlockStarts(blockSize), blockSize == 1 || !range.contains(machineId)
                ? "is out of range" : "does not start a block of " + blockSize + " that lies in the range");
        this.machineId = machineId;
        this.range = range;
        this.blockSize = blockSize;
    }

    /** The machine ID that was given. */
    public long machineId() {
        return machineId;
    }

    /** The range it had to lie in. */
    public MachineIdRange range() {
        return range;
    }

    /** The size of the block it had to start; 1 for a single machine ID. */
    public int blockSize() {
        return blockSize;
    }
}
