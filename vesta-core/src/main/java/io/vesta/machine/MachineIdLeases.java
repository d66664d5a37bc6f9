package io.vesta.machine;

import java.util.List;

/**
 * What an operator sees of, and may do to, the machine-ID leases of a shared store (the DB table, the Redis hash,
 * the ZooKeeper namespace): every machine ID of a range with its holder, and ending a lease so that another node can take the ID.
 * A provider that has such a store offers it through {@link MachineIdProvider#leases()}.
 *
 * <p>Ending a lease never lets two nodes issue the same ID: the former holder's next renewal fails and it stops
 * issuing, and whoever takes the ID next starts after the high water that was committed for it, past every ID the
 * former holder could have issued.
 */
public interface MachineIdLeases {

    /** The store, for humans: {@code "table vesta_machine"}, {@code "zookeeper /vesta/default"}. */
    String describe();

    /** Every machine ID of {@code range}, in order; one that was never leased has state {@link MachineIdLeaseInfo.State#FREE}. */
    List<MachineIdLeaseInfo> list(MachineIdRange range);

    /**
     * Ends the lease on {@code machineId} (and on the rest of the block its holder leased with it).
     *
     * @param force end a lease that is still live: its holder may be running, and stops issuing when its next renewal
     *        fails; without it a live lease is refused
     * @return the outcome, with the lease as it was and as it is
     * @throws IllegalArgumentException if the store has no lease on {@code machineId}
     * @throws LeaseChangeRefusedException if the lease is live and not forced, is this process's own, or changed
     *         while it was being ended
     */
    Released release(long machineId, boolean force);

    /** What {@link #release} did: {@code ended} false when the lease had already ended and nothing was written. */
    record Released(MachineIdLeaseInfo before, MachineIdLeaseInfo after, boolean ended, String detail) {
    }
}
