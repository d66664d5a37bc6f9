package io.vesta.time;

import io.vesta.layout.IssuingLayout;

import java.util.List;
import java.util.OptionalLong;

/**
 * Persists a high-water mark: a wall-clock time (Unix milliseconds) that every ID issued so far lies
 * strictly before. A generator restarted with its clock set back reads it and issues nothing earlier.
 *
 * <p>A store serves one generator at a time: {@link #open()} when the generator starts (before the first
 * {@link #load()}), {@link #close()} after its last ID. A second generator on the same mark, in this process or
 * another, would share the machine ID and repeat IDs, so a store that can tell refuses to open twice.
 */
public interface TimestampStore extends AutoCloseable {

    /**
     * Takes the store for one generator, before the first {@link #load()}.
     * @throws IllegalStateException if another generator holds it
     */
    default void open() {
    }

    /** The stored mark, or empty on a first start. */
    OptionalLong load();

    /** Durably replaces the mark; an ID beyond the previous mark is issued only after this returns. */
    void save(long epochMillis);

    /**
     * Every mark the store holds, each with the layout it was written under: one per layout whose IDs can collide
     * ({@link IssuingLayout#highBits()}), so that a generator started with another epoch, type, version or gen-method
     * can tell whether it would repeat IDs of an earlier one. By default {@link #load()} as a mark of unknown layout,
     * for a store that keeps no layout.
     */
    default List<RestartMark> loadAll() {
        OptionalLong mark = load();
        return mark.isPresent() ? List.of(new RestartMark(null, mark.getAsLong())) : List.of();
    }

    /**
     * Durably replaces the mark of {@code layout} (and of every layout with its {@link IssuingLayout#highBits()}),
     * keeping the marks of the others. By default {@link #save(long)}, for a store that keeps no layout.
     */
    default void save(IssuingLayout layout, long epochMillis) {
        save(epochMillis);
    }

    /** Gives the store back after the generator's last save. Safe to call more than once. */
    @Override
    default void close() {
    }
}
