package io.vesta.autoconfigure;

import io.vesta.ClockMovedBackwardsException;
import io.vesta.EmbeddedIdService;
import io.vesta.machine.MachineIdLease;

/**
 * Whether a generator can issue IDs now, in the words the health indicator, the server's status and its readiness
 * use: its machine ID must be held, its time field must not have run out, and its clock must not be refused.
 */
public final class IssuingState {

    private IssuingState() {
    }

    /**
     * Left before the time field runs out, under which health, the endpoint and the dashboard warn (as the start-up log
     * does): {@link EmbeddedIdService#TIME_REMAINING_WARNING}.
     */
    public static String timeFieldWarning(EmbeddedIdService ids) {
        if (ids.timeRemaining().compareTo(EmbeddedIdService.TIME_REMAINING_WARNING) >= 0) {
            return null;
        }
        return "The time field of " + ids.type() + " IDs runs out at " + ids.timeFieldEnd() + " (" + ids.timeRemaining()
                .toDays() + " days left); plan a later vesta.epoch with another vesta.version or vesta.type"
                + " (see docs/id-layout.md)";
    }

    /** Why {@code ids} cannot issue at {@code now}, or null when it can. */
    public static String problem(EmbeddedIdService ids, long now) {
        MachineIdLease lease = ids.machineIdLease();
        if (!lease.isHeldAt(now)) {
            return lease.notHeld(ids.machineIdBlock(), now).getMessage();
        }
        if (ids.timeRemaining().isZero()) {
            return "The time field of " + ids.type() + " IDs ran out at " + ids.timeFieldEnd() + " with the epoch "
                    + ids.epoch() + "; no ID is issued after it (see docs/id-layout.md, when the time field runs out)";
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
