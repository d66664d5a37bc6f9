package io.vesta.machine;

import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.BooleanSupplier;

/**
 * What a {@link LeasedMachineIdProvider} holds: the grant the generator reads (block, lease, mark), the claim with the
 * fence of its next write, and the lease ends written and confirmed. Its changes are made under the provider's store
 * lock; its reads are volatile, for the generator's threads and close().
 */
final class LeaseHolding<F> {

    /** The lease before the first claim: never held. */
    private final MachineIdLease unstarted = new MachineIdLease(Long.MIN_VALUE);
    /** The block held now, its lease and mark; null before the first claim. Replaced whole by a claim after a loss. */
    private volatile MachineIdGrant grant;
    /** The last claim, with the fence of the next write; null before the first claim or once given back. */
    private volatile LeaseClaim<F> claim;
    private volatile boolean lost;
    /** The highest lease end written, confirmed or not: every write goes above it, so it always changes the store. */
    private volatile long lastWrittenExpiry;
    /** The last lease end the store confirmed: no ID is issued at or after it. */
    private long confirmedExpiry;

    MachineIdLease lease() {
        MachineIdGrant current = grant;
        return current == null ? unstarted : current.lease();
    }

    Optional<MachineIdGrant> grant() {
        return Optional.ofNullable(grant);
    }

    OptionalLong notBefore() {
        MachineIdGrant current = grant;
        return current == null ? OptionalLong.empty() : current.notBefore();
    }

    LeaseClaim<F> claim() {
        return claim;
    }

    boolean isLost() {
        return lost;
    }

    long lastWrittenExpiry() {
        return lastWrittenExpiry;
    }

    /** Whether {@code machineId} is in the block held now, not lost. */
    boolean holds(long machineId) {
        MachineIdGrant current = grant;
        return current != null && !lost && machineId >= current.block().first() && machineId <= current.block().last();
    }

    /**
     * Publishes {@code next} as the next grant, its lease not yet held, then holds it unless {@code closed}: this reads
     * the flag after it sets the grant, close() the grant after it sets the flag, so one always sees the other.
     * @return false, with the lease ended and nothing issued under it, when close() began
     */
    boolean publish(LeaseClaim<F> next, BooleanSupplier closed, long now) {
        MachineIdGrant previous = grant;
        MachineIdLease lease = new MachineIdLease(Long.MIN_VALUE);
        claim = next;
        lastWrittenExpiry = next.expiry();
        confirmedExpiry = next.expiry();
        grant = new MachineIdGrant(previous == null ? 1 : previous.number() + 1, next.block(), lease,
                next.notBefore() == null ? OptionalLong.empty() : OptionalLong.of(next.notBefore()));
        if (closed.getAsBoolean() || !lease.extend(next.expiry())) {
            lease.end("the machine-ID provider was closed", now);
            claim = null;
            return false;
        }
        lost = false;
        return true;
    }

    /** The lease end the next renewal writes: a lease from {@code now}, above every end written so far. */
    long nextExpiry(long now, long leaseMillis) {
        long expiry = Math.max(now + leaseMillis, lastWrittenExpiry + 1);
        lastWrittenExpiry = expiry;
        return expiry;
    }

    /** The store confirmed {@code expiry}: the next write goes under {@code fence}; whether the lease was extended. */
    boolean confirm(LeaseClaim<F> renewed, F fence, long expiry) {
        claim = renewed.withFence(fence);
        if (!lease().extend(expiry)) {
            return false;
        }
        confirmedExpiry = expiry;
        return true;
    }

    /** The block is someone else's: its lease ends for good at {@code now}, with {@code message} as the reason. */
    void lose(String message, long now) {
        lease().end(message, now);
        lost = true;
    }

    /** close() began: the lease ends for good at {@code now}, before the clock is read for the release. */
    void close(long now) {
        if (grant != null) {
            lease().end("the machine-ID provider was closed", now);
        }
    }

    /** The high water a release at {@code now} writes, never before the latest time unit IDs were issued in. */
    long releaseMark(LeaseClaim<F> released, long now) {
        return released.releaseMark(confirmedExpiry, Math.max(now, lease().latestIssue()));
    }
}
