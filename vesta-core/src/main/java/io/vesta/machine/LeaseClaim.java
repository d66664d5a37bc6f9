package io.vesta.machine;

/**
 * A block a {@link LeaseBackend} claimed for this node.
 *
 * @param block     the machine IDs held
 * @param expiry    the lease end the store confirmed (Unix ms, this node's clock): no ID is issued at or after it
 *                  until a renewal confirms a later one
 * @param notBefore the high water taken over with the block (Unix ms): its IDs start after it; null for none
 * @param takenFrom the owner the block was taken over from, for messages; null when it was free or this owner's
 * @param fence     what fences this node's next write to the block (a generation, a token, a node version)
 */
public record LeaseClaim<F>(MachineIdBlock block, long expiry, Long notBefore, String takenFrom, F fence) {

    /** This claim, to be written next under {@code next}. */
    public LeaseClaim<F> withFence(F next) {
        return new LeaseClaim<>(block, expiry, notBefore, takenFrom, next);
    }

    /**
     * The high water a write of {@code expiry} carries: the expiry itself, never below the high water taken over. The
     * former holder may issue up to that one (its clock may run ahead of the expiry an operator's release wrote), and
     * whoever takes the block next must start after it too.
     */
    public long highWater(long expiry) {
        return notBefore == null ? expiry : Math.max(notBefore, expiry);
    }

    /**
     * The high water a release at {@code now} writes: every ID issued carries a time before {@code now + 1} (the lease
     * was revoked before {@code now} was read, and {@code now} is never before the latest time IDs were issued in) and
     * before {@code confirmedExpiry} (the lease never ran past it), and never below the high water taken over.
     */
    public long releaseMark(long confirmedExpiry, long now) {
        return highWater(Math.min(confirmedExpiry, now + 1));
    }
}
