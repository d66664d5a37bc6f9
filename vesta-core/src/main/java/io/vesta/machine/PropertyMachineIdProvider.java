package io.vesta.machine;

/** A machine ID fixed by configuration. Right for a handful of nodes that each get their own setting. */
public final class PropertyMachineIdProvider implements MachineIdProvider {

    /** The name of the setting, without a prefix, when none is given. */
    public static final String SETTING = "machine-id.value";

    private final long machineId;
    private final String setting;

    /**
     * @param machineId the configured ID
     * @param setting the setting's full name where the user typed it, used in errors ({@code "vesta.machine-id.value"})
     */
    public PropertyMachineIdProvider(long machineId, String setting) {
        this.machineId = machineId;
        this.setting = setting;
    }

    /** The ID under the setting name {@value #SETTING}. */
    public PropertyMachineIdProvider(long machineId) {
        this(machineId, SETTING);
    }

    /**
     * The configured ID as the first of the block.
     * @throws io.vesta.InvalidSettingException if the ID does not start one of the range's aligned blocks of
     *         {@code blockSize}
     */
    @Override
    public long acquire(MachineIdRange range, int blockSize) {
        return range.checkBlock(setting, machineId, blockSize);
    }

    @Override
    public String describe() {
        return "property";
    }
}
