package io.vesta.machine;

import java.util.Optional;
import java.util.OptionalLong;

/**
 * Where a node's machine ID comes from. A provider may hold a resource for as long as the ID is in use (a
 * lease, a session); {@link #close()} gives it back.
 */
public interface MachineIdProvider extends AutoCloseable {

    /**
     * The machine ID this node issues under, within {@code range}: the block of one, {@code acquire(range, 1)}.
     * Called once, when the generator is built.
     * @throws IllegalArgumentException if the configured ID is not in the range
     * @throws MachineIdUnavailableException if no ID can be had
     */
    default long acquire(MachineIdRange range) {
        return acquire(range, 1);
    }

    /**
     * The first machine ID of the block of {@code blockSize} consecutive IDs this node issues under: one of the
     * range's aligned blocks ({@link MachineIdRange#blocks(int)}), held whole or not at all. Called once, when the
     * generator is built. This is the method a provider implements; one that hands out single machine IDs only starts
     * with {@link #refuseBlocks}.
     *
     * @param blockSize a power of two in [1, {@link MachineIdRange#MAX_BLOCK_SIZE}] that fits the range
     * @throws UnsupportedOperationException if this provider hands out single machine IDs only and {@code blockSize}
     *         is above 1
     */
    long acquire(MachineIdRange range, int blockSize);

    /**
     * For a provider of single machine IDs: refuses a block above 1 the way the builder expects, so that it names
     * the block-size setting and what is allowed.
     * @throws UnsupportedOperationException if {@code blockSize} is above 1
     */
    static void refuseBlocks(MachineIdProvider provider, int blockSize) {
        if (blockSize != 1) {
            throw new UnsupportedOperationException("The machine-ID provider " + provider.describe()
                    + " hands out single machine IDs, not blocks of " + blockSize);
        }
    }

    /** Where the ID came from, for humans: {@code "property"}, {@code "ip-list (10.0.0.7 at position 3)"}. */
    String describe();

    /**
     * How long the acquired ID may be used. The generator checks it before every ID and refuses with a
     * {@link MachineIdUnavailableException} once it has run out. The default never runs out.
     */
    default MachineIdLease lease() {
        return MachineIdLease.forever();
    }

    /**
     * A wall-clock time (Unix milliseconds) that this node's IDs must come after: the highest time a
     * previous owner of the ID may have issued in, when the ID was taken over. Empty when there is none.
     * The generator treats it like a persisted high-water mark.
     */
    default OptionalLong notBefore() {
        return OptionalLong.empty();
    }

    /**
     * What the provider holds now, for a provider whose block can change while it is open: a leased provider that
     * lost its block (taken over after a pause longer than the lease, ended by an operator) claims another by itself,
     * as {@link #acquire} did, and publishes it here as a new grant; the generator then moves to it. Empty, the
     * default, for a provider whose block is fixed from {@code acquire} on; empty too before {@code acquire}.
     */
    default Optional<MachineIdGrant> grant() {
        return Optional.empty();
    }

    /**
     * Registers {@code listener} to run, on the provider's own thread, each time the provider has published a new
     * {@link #grant()} after a loss. It must not block for long. The default never calls it.
     */
    default void onRegain(Runnable listener) {
    }

    /**
     * The shared store's leases, for an operator to list and end ({@link MachineIdLeases}); empty for a provider
     * without one (the property and IP-list strategies). The default has none.
     */
    default Optional<MachineIdLeases> leases() {
        return Optional.empty();
    }

    /**
     * Releases what the provider holds. Must be safe to call more than once: the generator closes its provider,
     * and a container that manages the provider may close it again. The default holds nothing.
     */
    @Override
    default void close() {
    }
}
