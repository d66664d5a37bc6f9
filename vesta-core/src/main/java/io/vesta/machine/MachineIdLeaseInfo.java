package io.vesta.machine;

import java.time.Instant;

/**
 * One machine ID of a shared lease store, as an operator sees it.
 *
 * @param machineId  the machine ID
 * @param state      whether it is held, free since its lease ended, or was never leased
 * @param owner      who holds it or last held it; null when never leased
 * @param leaseExpiry when the lease ends (or ended) by the holder's clock; null when never leased
 * @param highWater  every ID its holder issued has a time before this: the next holder starts after it; null when
 *                   never leased
 * @param generation the DB row's or Redis entry's generation, or the ZooKeeper node's version: it moves on whenever the ID changes
 *                   hands or its lease is ended
 * @param self       whether this process holds it
 */
public record MachineIdLeaseInfo(long machineId, State state, String owner, Instant leaseExpiry, Instant highWater,
        long generation, boolean self) {

    /** The state of a machine ID in the store. */
    public enum State {
        /** Held: its lease has not ended, so its holder may be issuing. */
        LIVE,
        /** Leased before; its lease has ended, so any node may take it (after its high water). */
        EXPIRED,
        /** Never leased. */
        FREE
    }

    public boolean live() {
        return state == State.LIVE;
    }

    public static MachineIdLeaseInfo free(long machineId) {
        return new MachineIdLeaseInfo(machineId, State.FREE, null, null, null, 0, false);
    }
}
