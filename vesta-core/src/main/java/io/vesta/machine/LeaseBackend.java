package io.vesta.machine;

import java.time.Duration;
import java.time.Instant;
import java.util.function.LongPredicate;

/**
 * The store's part of a leased machine ID: what a database table, a Redis hash or a ZooKeeper namespace does for a
 * {@link LeasedMachineIdProvider}, which runs the rest of the protocol once for every store. Every write that changes a
 * lease is fenced: it succeeds only if the store still holds exactly what this node read or wrote last (a row's
 * generation, a Redis token, a ZooKeeper node version); the fence {@code F} is the backend's, the provider only carries
 * it. The provider calls {@link #claim}, {@link #renew}, {@link #release} and {@link #close} one at a time, and never
 * {@code renew} or {@code release} with a claim other than the last one it was given; {@link #leases} runs on an
 * operator's thread beside them. A store with one record per machine ID extends {@link RecordLeaseBackend}.
 *
 * @param <F> what fences this node's writes
 */
public interface LeaseBackend<F> {

    /** The store, for messages: {@code "table vesta_machine"}, {@code "Redis 10.0.0.5:6379 key vesta:machine-ids"}. */
    String store();

    /** A short name of the store for thread names: the table, the key, the namespace. */
    String scope();

    /** What one renewal is called in logs and thread names: {@code "heartbeat"} or {@code "report"}. */
    default String renewalName() {
        return "heartbeat";
    }

    /**
     * The provider, for humans ({@link MachineIdProvider#describe()}): {@code "db (table vesta_machine, owner 'a')"}.
     * @param held the block held now, or null
     */
    String describe(LeaseClaim<F> held);

    /**
     * Claims a block of {@code blockSize} machine IDs of {@code range}, whole or not at all, with a fenced write: the
     * owner's own block first (at start-up even while its lease runs: a previous run of this node; after a loss not,
     * as it is then the process that took the block over), else the first free block in the range's
     * {@link MachineIdRange#order() order} (from the top down for servers).
     *
     * @return the block, confirmed until {@link LeaseClaim#expiry()}, and the high water its IDs start after
     * @throws MachineIdUnavailableException when no block can be had (the range full, every candidate taken first)
     * @throws IllegalArgumentException when the store cannot be used with {@code range} or {@code blockSize}
     * @throws Exception when the store could not be asked; the provider says what it was asked
     */
    LeaseClaim<F> claim(MachineIdRange range, int blockSize, boolean startUp) throws Exception;

    /**
     * Extends the lease on {@code held} to {@code expiry} and writes {@code highWater} (at least {@code expiry}) with a
     * write fenced by {@code held}'s fence.
     *
     * @return {@link Renewal#renewed} with the fence of the next write, or {@link Renewal#lost} when the block is no
     *         longer this node's
     * @throws Exception when the renewal may not have landed: the lease then runs out by itself unless a later one does
     */
    Renewal<F> renew(LeaseClaim<F> held, long expiry, long highWater) throws Exception;

    /**
     * Gives {@code held} back: its lease ends at {@code now} and its {@code highWater} bounds every ID issued under it,
     * so that the next holder may start at once. A block in other hands is left as it is.
     *
     * @return whether the block was released; false when it had changed hands already
     */
    boolean release(LeaseClaim<F> held, long now, long highWater) throws Exception;

    /**
     * What an operator sees of the store's leases, and may end.
     * @param heldHere whether a machine ID is held by this provider now
     */
    MachineIdLeases leases(LongPredicate heldHere);

    /** How long {@link MachineIdProvider#close()} may take at most: the bound of one call into the store, and a second. */
    Duration closeTimeout();

    /**
     * What becomes of {@code held} when its release did not land: {@code "the rows become free by themselves when their
     * lease ends (...)"}.
     */
    default String unreleased(LeaseClaim<F> held, long lastWrittenExpiry) {
        return "the block becomes free by itself when its lease ends (the last expiry this node wrote is "
                + Instant.ofEpochMilli(lastWrittenExpiry) + ")";
    }

    /** Closes what the backend opened itself (a client, a connection); not what it was given. Called once, last. */
    default void close() {
    }

    /**
     * What one renewal came to: renewed, with the fence of the next write, or lost, with why.
     * @param fence      the fence of the next write; null when lost
     * @param lostReason why the block is no longer this node's; null when renewed
     */
    record Renewal<F>(F fence, String lostReason) {

        public static <F> Renewal<F> renewed(F fence) {
            return new Renewal<>(fence, null);
        }

        public static <F> Renewal<F> lost(String reason) {
            return new Renewal<>(null, reason);
        }

        public boolean isRenewed() {
            return lostReason == null;
        }
    }
}
