package io.vesta.segment;

/**
 * A business tag has no number left in either buffer and the next segment could not be loaded: the
 * database is unreachable, the statement failed, or the row holds a value the allocator cannot use. Nothing
 * is lost or skipped: the next call tries the database again and carries on where the table says. Also what
 * {@link SegmentIdService#createTag} throws when the table cannot be written.
 */
public class SegmentUnavailableException extends IllegalStateException {

    private final String bizTag;

    public SegmentUnavailableException(String bizTag, String table, Throwable cause) {
        super("No number for bizTag '" + bizTag + "': both segments are used up and the next one could not be "
                + "loaded from table " + table + ": " + describe(cause), cause);
        this.bizTag = bizTag;
    }

    private SegmentUnavailableException(String bizTag, Throwable cause, String message) {
        super(message, cause);
        this.bizTag = bizTag;
    }

    /** {@link SegmentIdService#createTag} could not write or read the tag's row. */
    static SegmentUnavailableException notCreated(String bizTag, String table, Throwable cause) {
        return new SegmentUnavailableException(bizTag, cause, "bizTag '" + bizTag + "' could not be created in table "
                + table + ": " + describe(cause));
    }

    public String bizTag() {
        return bizTag;
    }

    private static String describe(Throwable cause) {
        String message = cause.getMessage();
        return message == null || message.isBlank() ? cause.getClass().getName()
                : cause.getClass().getSimpleName() + ": " + message;
    }
}
