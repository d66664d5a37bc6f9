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

    public MachineIdOutOfRangeException(String setting, long machineId, MachineIdRange range) {
        super(setting, machineId, "a machine ID in [" + range.min() + ", " + range.max() + "]");
        this.machineId = machineId;
        this.range = range;
    }

    /** The machine ID that was given. */
    public long machineId() {
        return machineId;
    }

    /** The range it had to lie in. */
    public MachineIdRange range() {
        return range;
    }
}
