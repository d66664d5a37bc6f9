package io.vesta.autoconfigure;

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
        if (!ids.clockHealthy()) {
            return "The clock is " + ids.clockBehind().toMillis() + " ms behind the last issued ID (" + ids.lastIssuedTime()
                    + "), beyond the " + ids.maxBackwardWait().toMillis() + " ms that are waited out"
                    + " (vesta.clock.max-backward-wait); no ID is issued until it catches up";
        }
        return null;
    }
}
