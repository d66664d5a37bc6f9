package io.vesta.autoconfigure;

import io.vesta.ClockMovedBackwardsException;
import io.vesta.EmbeddedIdService;
import io.vesta.machine.MachineIdLease;

/**
 * Whether a generator can issue IDs now, in the words the health indicator, the server's status and its readiness
 * use: its machine ID must be held, and its clock must not be refused.
 */
public final class IssuingState {

    private IssuingState() {
    }

    /** Why {@code ids} cannot issue at {@code now}, or null when it can. */
    public static String problem(EmbeddedIdService ids, long now) {
        MachineIdLease lease = ids.machineIdLease();
        if (!lease.isHeldAt(now)) {
            return lease.notHeld(ids.machineIdBlock(), now).getMessage();
        }
        ClockMovedBackwardsException refusal = ids.clockRefusal().orElse(null);
        if (refusal == null) {
            return null;
        }
        if (refusal.reservedBy().isPresent()) {
            // Nothing issued yet: the time reserved before this start, which is no fault of the clock.
            return refusal.getMessage();
        }
        return "The clock is " + refusal.behind().toMillis() + " ms behind the last issued ID (" + refusal.lastTime()
                + "), beyond the " + ids.maxBackwardWait().toMillis() + " ms that are waited out"
                + " (vesta.clock.max-backward-wait); no ID is issued until it catches up";
    }
}
