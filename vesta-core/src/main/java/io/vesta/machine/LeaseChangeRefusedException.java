package io.vesta.machine;

/** {@link MachineIdLeases#release} refused to end a lease: it is live and not forced, it is this process's own, or it changed meanwhile. */
public class LeaseChangeRefusedException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final long machineId;
    private final String reason;

    /** @param reason a short code: {@code live}, {@code own}, {@code changed} */
    public LeaseChangeRefusedException(long machineId, String reason, String message) {
        super(message);
        this.machineId = machineId;
        this.reason = reason;
    }

    public long machineId() {
        return machineId;
    }

    public String reason() {
        return reason;
    }
}
