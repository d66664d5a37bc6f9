package io.vesta.segment;

/**
 * The segment table has no row for a business tag, and automatic creation does not cover it (or the caller may not
 * create tags, or the row was deleted while the service ran). The tag is a caller's argument, so this is an {@link IllegalArgumentException}:
 * a server maps it to "not found" rather than "unavailable".
 */
public class UnknownBizTagException extends IllegalArgumentException {

    private final String bizTag;
    private final String table;

    public UnknownBizTagException(String bizTag, String table) {
        super("Unknown bizTag '" + bizTag + "': table " + table + " has no row for it. Insert one, e.g. "
                + "INSERT INTO " + table + " (biz_tag, max_id, step, description) VALUES ('" + bizTag.replace("'", "''")
                + "', 1, 1000, '...'), create it with SegmentIdService.createTag (a Vesta server: POST /vesta/admin/segments/"
                + bizTag + "), or let auto-create-tags match it");
        this.bizTag = bizTag;
        this.table = table;
    }

    public String bizTag() {
        return bizTag;
    }

    public String table() {
        return table;
    }
}
