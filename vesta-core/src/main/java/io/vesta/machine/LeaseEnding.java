package io.vesta.machine;

import io.vesta.machine.MachineIdLeases.Released;

/**
 * The rules a store whose leases expire by time (the DB table, the Redis hash) applies around ending a lease in
 * {@link MachineIdLeases#release}, and the words it says them in, so that every store refuses and reports alike:
 * this process's own lease is never ended, a lease that has ended already is left as it is, and a live one only by
 * force.
 */
public final class LeaseEnding {

    private LeaseEnding() {
    }

    /**
     * Whether {@code before} may be ended now.
     * @return null when the caller should end it; the outcome, with nothing written, when it has ended already
     * @throws LeaseChangeRefusedException when it is this process's own ({@code own}), or live and not forced
     *         ({@code live})
     */
    public static Released check(MachineIdLeaseInfo before, boolean force) {
        long machineId = before.machineId();
        if (before.self()) {
            throw new LeaseChangeRefusedException(machineId, "own", "Machine ID " + machineId + " is held by this"
                    + " process (owner '" + before.owner() + "'); stop it to release the ID");
        }
        if (!before.live()) {
            return new Released(before, before, false, "The lease of owner '" + before.owner() + "' on machine ID "
                    + machineId + " ended at " + before.leaseExpiry() + "; any node may take it (after "
                    + before.highWater() + ")");
        }
        if (!force) {
            throw new LeaseChangeRefusedException(machineId, "live", "The lease of owner '" + before.owner()
                    + "' on machine ID " + machineId + " is live until " + before.leaseExpiry() + ": its holder may be"
                    + " running. Stop it, wait for the lease to end, or force the release if its process is gone");
        }
        return null;
    }

    /** The lease changed between the read that {@link #check} judged and the write that was to end it. */
    public static LeaseChangeRefusedException changed(long machineId) {
        return new LeaseChangeRefusedException(machineId, "changed", "The lease on machine ID " + machineId
                + " changed while it was being ended (a new holder took it, or it was ended meanwhile); read the leases"
                + " again");
    }

    /**
     * The outcome of ending a live lease by force on {@code entries} machine IDs (its holder's block).
     * @param what the ended entries in the store's words, plural: {@code "rows"}, {@code "entries"}
     */
    public static Released ended(MachineIdLeaseInfo before, MachineIdLeaseInfo after, long entries, String what,
            String store, System.Logger log) {
        long machineId = before.machineId();
        log.log(System.Logger.Level.WARNING, () -> "Ended the live lease of owner '" + before.owner() + "' on machine ID "
                + machineId + (entries > 1 ? " and the other " + (entries - 1) + " " + what + " of its block" : "") + " in "
                + store + " by force; the next holder starts after " + before.highWater());
        return new Released(before, after, true, "Ended the lease of owner '" + before.owner() + "' on machine ID "
                + machineId + (entries > 1 ? " and the other " + (entries - 1) + " machine IDs of its block" : "")
                + "; its holder stops issuing at its next renewal, and the next holder starts after " + before.highWater());
    }
}
