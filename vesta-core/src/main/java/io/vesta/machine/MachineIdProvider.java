package io.vesta.machine;

import java.util.OptionalLong;

/**
 * Where a node's machine ID comes from. A provider may hold a resource for as long as the ID is in use (a
 * lease, a session); {@link #close()} gives it back.
 */
public interface MachineIdProvider extends AutoCloseable {

    /**
     * The machine ID this node issues under, within {@code range}. Called once, when the generator is built.
     * @throws IllegalArgumentException if the configured ID is not in the range
     * @throws MachineIdUnavailableException if no ID can be had
     */
    long acquire(MachineIdRange range);

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
     * Releases what the provider holds. Must be safe to call more than once: the generator closes its provider,
     * and a container that manages the provider may close it again. The default holds nothing.
     */
    @Override
    default void close() {
    }
}
