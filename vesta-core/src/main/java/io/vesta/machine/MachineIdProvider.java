package io.vesta.machine;

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

    /** Releases what the provider holds. The default holds nothing. */
    @Override
    default void close() {
    }
}
