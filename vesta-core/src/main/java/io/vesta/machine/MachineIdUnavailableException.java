package io.vesta.machine;

/** No machine ID can be had for this node: its address is not listed, the range is full, the lease is lost. */
public class MachineIdUnavailableException extends IllegalStateException {

    public MachineIdUnavailableException(String message) {
        super(message);
    }

    public MachineIdUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
