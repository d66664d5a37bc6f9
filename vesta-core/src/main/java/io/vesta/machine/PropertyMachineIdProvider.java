package io.vesta.machine;

/** A machine ID fixed by configuration. Right for a handful of nodes that each get their own setting. */
public final class PropertyMachineIdProvider implements MachineIdProvider {

    private final long machineId;
    private final String name;

    /**
     * @param machineId the configured ID
     * @param name how the setting is called where the user typed it, used in errors ({@code "machineId"},
     *        {@code "vesta.machine-id.value"})
     */
    public PropertyMachineIdProvider(long machineId, String name) {
        this.machineId = machineId;
        this.name = name;
    }

    public PropertyMachineIdProvider(long machineId) {
        this(machineId, "machineId");
    }

    @Override
    public long acquire(MachineIdRange range) {
        return range.check(name, machineId);
    }

    @Override
    public String describe() {
        return "property";
    }
}
