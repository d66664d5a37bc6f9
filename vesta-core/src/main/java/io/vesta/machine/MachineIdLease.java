package io.vesta.machine;

import java.time.Instant;
import java.util.concurrent.atomic.AtomicLong;

/**
 * How long a node may issue under its machine ID. Providers that share IDs between nodes (database and Redis
 * leases, ZooKeeper) renew it while they hold the ID and revoke it when they cannot be sure they still do; the
 * generator reads it before every ID, so it is a single volatile field. Providers whose IDs are fixed by
 * configuration use {@link #forever()}.
 */
public final class MachineIdLease {

    private static final MachineIdLease FOREVER = new MachineIdLease(Long.MAX_VALUE);

    private volatile long heldUntil;
    private volatile String lostReason;
    private volatile long revokedAt = Long.MIN_VALUE;
    /** Set by {@link #end}: the lease is never held again. */
    private volatile boolean ended;
    /** The start of the latest time unit a generator issued IDs in under this lease; Long.MIN_VALUE for none. */
    private final AtomicLong latestIssue = new AtomicLong(Long.MIN_VALUE);

    public MachineIdLease(long heldUntilEpochMillis) {
        this.heldUntil = heldUntilEpochMillis;
    }

    /** A lease that never ends. */
    public static MachineIdLease forever() {
        return FOREVER;
    }

    /** Unix milliseconds until which the ID is certainly this node's; {@code Long.MAX_VALUE} for ever. */
    public long heldUntil() {
        return heldUntil;
    }

    /** Extends (or shortens) the lease to {@code epochMillis}; clears a revocation. */
    public void renew(long epochMillis) {
        if (this == FOREVER) {
            throw new UnsupportedOperationException("the lease of a fixed machine ID cannot change");
        }
        this.lostReason = null;
        this.heldUntil = epochMillis;
    }

    /**
     * Extends the lease to {@code epochMillis}, an end the store confirmed, unless it was {@link #end ended}: a
     * renewal that comes back from the store after its lease was lost or its provider closed never revives it.
     * @return whether the lease was extended
     */
    public synchronized boolean extend(long epochMillis) {
        if (ended) {
            return false;
        }
        renew(epochMillis);
        return true;
    }

    /**
     * Ends the lease for good at {@code epochMillis}: no ID is issued under it again, whatever renews it afterwards
     * through {@link #extend}.
     */
    public synchronized void end(String reason, long epochMillis) {
        ended = true;
        revoke(reason, epochMillis);
    }

    /**
     * A generator issues IDs under this lease in the time unit that starts at {@code epochMillis}; called once per
     * unit, before its first ID. A release must mark a time at or after it, whatever the clock reads by then: a clock
     * stepped back after the IDs were issued would otherwise lower the mark the next holder starts after below them.
     */
    public void issuing(long epochMillis) {
        if (this != FOREVER) {
            latestIssue.accumulateAndGet(epochMillis, Math::max);
        }
    }

    /** The start of the latest time unit IDs were issued in under this lease ({@link #issuing}); Long.MIN_VALUE for none. */
    public long latestIssue() {
        return latestIssue.get();
    }

    /** Whether the lease was {@link #end ended} for good. */
    public boolean isEnded() {
        return ended;
    }

    /** Ends the lease now: no ID is issued until it is renewed. */
    public void revoke(String reason) {
        revoke(reason, Long.MIN_VALUE);
    }

    /**
     * Ends the lease at {@code epochMillis}, the time it is revoked: no ID is issued until it is renewed, and
     * {@link #unheldSince()} counts from then.
     */
    public void revoke(String reason, long epochMillis) {
        if (this == FOREVER) {
            throw new UnsupportedOperationException("the lease of a fixed machine ID cannot change");
        }
        this.revokedAt = epochMillis;
        this.lostReason = reason;
        this.heldUntil = Long.MIN_VALUE;
    }

    /**
     * Since when (Unix milliseconds) the ID has not been held, for a lease not held now: when it was revoked, or the
     * end it ran out at. {@code Long.MIN_VALUE} for a lease revoked without a time or never held.
     */
    public long unheldSince() {
        long until = heldUntil;
        return until == Long.MIN_VALUE ? revokedAt : until;
    }

    /** Whether the ID may be used at {@code epochMillis}. */
    public boolean isHeldAt(long epochMillis) {
        return epochMillis < heldUntil;
    }

    /** Why the lease was revoked, or null. */
    public String lostReason() {
        return lostReason;
    }

    /** The exception a generator throws when asked for an ID at {@code epochMillis} without the lease. */
    public MachineIdUnavailableException notHeld(long machineId, long epochMillis) {
        return notHeld(MachineIdBlock.of(machineId), epochMillis);
    }

    /** The exception a generator throws when asked for an ID of {@code block} at {@code epochMillis} without the lease. */
    public MachineIdUnavailableException notHeld(MachineIdBlock block, long epochMillis) {
        String reason = lostReason;
        long until = heldUntil;
        String what = block.describe();
        return new MachineIdUnavailableException(Character.toUpperCase(what.charAt(0)) + what.substring(1)
                + (block.size() == 1 ? " is" : " are") + " not held by this node at "
                + Instant.ofEpochMilli(epochMillis) + ": "
                + (reason != null ? reason : until == Long.MIN_VALUE ? "the lease was revoked"
                        : "its lease expired at " + Instant.ofEpochMilli(until) + " and has not been renewed")
                + ". No ID is issued until the lease is held again.");
    }
}
