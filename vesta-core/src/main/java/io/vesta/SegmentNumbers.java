package io.vesta;

/**
 * Dense numbers per business tag, Leaf-segment style: what {@code @VestaId(segment = "orders")} properties are filled
 * from. {@code io.vesta.segment.SegmentIdService} (vesta-jdbc) implements it on a database table; the adapters
 * (Hibernate, MyBatis, Spring Data) need only this interface.
 *
 * <p>A business tag is 1 to {@value #MAX_BIZ_TAG_LENGTH} printable ASCII characters matching
 * {@value #BIZ_TAG_PATTERN}: letters, digits, {@code _ . : -}, not starting with {@code . : -}. Nothing else
 * (spaces, {@code ;}, {@code /}, {@code %}, control or invisible characters, non-ASCII letters) can enter: a tag
 * is a path segment of the REST API and a key of the segment table, and must read the same in both and in a log.
 */
public interface SegmentNumbers {

    /** The longest business tag: the width of the segment table's {@code biz_tag} column. */
    int MAX_BIZ_TAG_LENGTH = 128;

    /** What a business tag must match, whole. */
    String BIZ_TAG_PATTERN = "[A-Za-z0-9_][A-Za-z0-9_.:-]{0," + (MAX_BIZ_TAG_LENGTH - 1) + "}";

    /**
     * The next number of {@code bizTag}.
     * @throws IllegalArgumentException if the tag does not match {@link #BIZ_TAG_PATTERN}, or is unknown (and not
     *         created on first use)
     */
    long nextId(String bizTag);

    /** {@code count} numbers of {@code bizTag}, increasing. */
    long[] nextIds(String bizTag, int count);

    /**
     * Returns {@code bizTag} if it matches {@link #BIZ_TAG_PATTERN}, else throws an {@link IllegalArgumentException}
     * naming {@code argument}, the value (escaped: every character outside printable ASCII as {@code \}{@code uXXXX},
     * cut after 160 characters) and the pattern.
     */
    static String requireValidBizTag(String argument, String bizTag) {
        if (bizTag == null) {
            throw new IllegalArgumentException(argument + " must be set: 1 to " + MAX_BIZ_TAG_LENGTH
                    + " characters matching " + BIZ_TAG_PATTERN);
        }
        if (!BizTagFormat.PATTERN.matcher(bizTag).matches()) {
            throw new IllegalArgumentException(argument + " must be 1 to " + MAX_BIZ_TAG_LENGTH + " characters matching "
                    + BIZ_TAG_PATTERN + " (letters, digits, '_', '.', ':', '-'; the first a letter, digit or '_'), was \""
                    + BizTagFormat.escape(bizTag) + "\" (" + bizTag.length() + " characters)");
        }
        return bizTag;
    }
}
