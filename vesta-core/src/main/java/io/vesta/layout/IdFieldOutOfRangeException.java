package io.vesta.layout;

/**
 * A field of an ID given out of its layout's range, as {@code makeId} and {@code transTime} refuse it. Carries the
 * field's name ({@code "seq"}), the value and the range, so that a caller (the server's makeid endpoint) can name
 * the field without reading the message.
 */
public class IdFieldOutOfRangeException extends IllegalArgumentException {

    private final String field;
    private final long value;
    private final long min;
    private final long max;

    /**
     * @param field the field's name as {@link io.vesta.Id} calls it: version, type, genMethod, time, seq, machine
     * @param value the value that was given
     * @param min   the smallest value the layout holds
     * @param max   the largest value the layout holds
     */
    public IdFieldOutOfRangeException(String field, long value, long min, long max) {
        super(field + " must be in [" + min + ", " + max + "], was " + value);
        this.field = field;
        this.value = value;
        this.min = min;
        this.max = max;
    }

    /** The field's name: version, type, genMethod, time, seq or machine. */
    public String field() {
        return field;
    }

    /** The value that was given. */
    public long value() {
        return value;
    }

    /** The smallest value the layout holds for the field. */
    public long min() {
        return min;
    }

    /** The largest value the layout holds for the field. */
    public long max() {
        return max;
    }
}
