package io.vesta.time;

import java.util.OptionalLong;

/**
 * Persists a high-water mark: a wall-clock time (Unix milliseconds) that every ID issued so far lies
 * strictly before. A generator restarted with its clock set back reads it and issues nothing earlier.
 */
public interface TimestampStore {

    /** The stored mark, or empty on a first start. */
    OptionalLong load();

    /** Durably replaces the mark; an ID beyond the previous mark is issued only after this returns. */
    void save(long epochMillis);
}
