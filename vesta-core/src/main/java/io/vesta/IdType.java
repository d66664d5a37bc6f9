package io.vesta;

/**
 * The two ID layouts. The type is a node's configuration: IDs of both types never collide because the type
 * is part of every ID (bit 62), but switching a running node from one to the other needs a restart.
 */
public enum IdType {

    /** Time in seconds (30 bits), 20 bits of sequence: about 2^20 IDs per second per machine ID. */
    MAX_PEAK,

    /** Time in milliseconds (40 bits), 10 bits of sequence: 1024 IDs per millisecond per machine ID. */
    MIN_GRANULARITY;

    /** The value stored in an ID's type bit. */
    public long code() {
        return ordinal();
    }

    /**
     * The type whose {@link #code()} is {@code code}.
     * @throws IllegalArgumentException if the code is neither 0 nor 1
     */
    public static IdType ofCode(long code) {
        if (code == 0) {
            return MAX_PEAK;
        }
        if (code == 1) {
            return MIN_GRANULARITY;
        }
        throw new IllegalArgumentException("type must be in [0, 1] (0 MAX_PEAK, 1 MIN_GRANULARITY), was " + code);
    }
}
