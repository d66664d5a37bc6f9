package io.vesta.segment;

import io.vesta.jdbc.Jdbc;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;

/**
 * The segment table through plain JDBC. Every allocation is one transaction: the UPDATE takes the row lock,
 * so two nodes allocating for the same tag are serialised by the database and the SELECT in the same
 * transaction reads the value this node's own UPDATE produced, never another node's.
 */
final class SegmentTable {

    /** A step read back from the table, with the segment it produced: numbers in [maxId - step, maxId). */
    record Allocation(long maxId, int step, int tableStep) {
    }

    /** The segment table's statements set no query timeout of their own: the driver's and the pool's apply. */
    private static final int NO_TIMEOUT = 0;

    private final DataSource dataSource;
    private final String table;
    private final int defaultStep;
    // update_time is bookkeeping for operators, so it takes the database's clock (one clock for all nodes);
    // nothing in the allocation depends on it.
    private final String updateByTableStep;
    private final String updateByStep;
    private final String select;
    private final String insert;

    SegmentTable(DataSource dataSource, String table, int defaultStep) {
        this.dataSource = dataSource;
        this.table = table;
        this.defaultStep = defaultStep;
        this.updateByTableStep = "UPDATE " + table + " SET max_id = max_id + step, update_time = CURRENT_TIMESTAMP WHERE biz_tag = ?";
        this.updateByStep = "UPDATE " + table + " SET max_id = max_id + ?, update_time = CURRENT_TIMESTAMP WHERE biz_tag = ?";
        this.select = "SELECT max_id, step FROM " + table + " WHERE biz_tag = ?";
        this.insert = "INSERT INTO " + table + " (biz_tag, max_id, step, description, update_time) VALUES (?, ?, ?, ?, CURRENT_TIMESTAMP)";
    }

    String table() {
        return table;
    }

    /**
     * Moves the tag's max_id forward by {@code step}, or by the table's own step when {@code step} is 0, and
     * returns the new max_id. A missing row is created first (with the default step) when {@code create} is set.
     */
    Allocation allocate(String bizTag, int step, boolean create) throws SQLException {
        Allocation allocation = update(bizTag, step);
        if (allocation != null) {
            return allocation;
        }
        if (!create) {
            throw new UnknownBizTagException(bizTag, table);
        }
        // Two nodes may both find the row missing and both insert: the loser's INSERT fails on the primary key
        // (which SQLState depends on the database), so instead of classifying the error the UPDATE is simply
        // retried. If the row is there now, whoever inserted it, the allocation goes ahead.
        SQLException insertFailure = null;
        try {
            insert(bizTag, 1, defaultStep, "created on first use by Vesta");
        } catch (SQLException e) {
            insertFailure = e;
        }
        allocation = update(bizTag, step);
        if (allocation != null) {
            return allocation;
        }
        if (insertFailure != null) {
            throw insertFailure;
        }
        throw new UnknownBizTagException(bizTag, table);
    }

    private Allocation update(String bizTag, int step) throws SQLException {
        try (Connection connection = dataSource.getConnection()) {
            return Jdbc.transaction(connection, c -> {
                int rows = step == 0 ? Jdbc.update(c, updateByTableStep, NO_TIMEOUT, bizTag)
                        : Jdbc.update(c, updateByStep, NO_TIMEOUT, step, bizTag);
                if (rows == 0) {
                    return null;
                }
                long[] row = read(c, bizTag);
                if (row == null) {
                    throw new SQLException("Row of bizTag '" + bizTag + "' in " + table
                            + " vanished inside the allocating transaction");
                }
                int tableStep = (int) row[1];
                if (tableStep < 1) {
                    // The UPDATE by the table's step would have moved nothing (or backwards): never commit that.
                    throw new IllegalStateException("step of bizTag '" + bizTag + "' in " + table
                            + " must be at least 1, was " + tableStep);
                }
                return new Allocation(row[0], step == 0 ? tableStep : step, tableStep);
            });
        }
    }

    /**
     * Inserts the tag's row unless there is one: true if this call inserted it. A row that is there already is left
     * as it is, whatever its values. A failed INSERT is classified by reading the row back (the SQLState of a
     * duplicate key depends on the database): there now, it is somebody else's, else the failure is passed on.
     */
    boolean create(String bizTag, long maxId, int step, String description) throws SQLException {
        if (row(bizTag) != null) {
            return false;
        }
        try {
            insert(bizTag, maxId, step, description);
            return true;
        } catch (SQLException e) {
            try {
                if (row(bizTag) != null) {
                    return false;
                }
            } catch (SQLException again) {
                e.addSuppressed(again);
            }
            throw e;
        }
    }

    /** The tag's max_id and step, or null when the table has no row for it. */
    long[] row(String bizTag) throws SQLException {
        try (Connection connection = dataSource.getConnection()) {
            return read(connection, bizTag);
        }
    }

    private long[] read(Connection connection, String bizTag) throws SQLException {
        List<long[]> rows = Jdbc.query(connection, select, NO_TIMEOUT, row -> new long[] { row.getLong(1), row.getInt(2) },
                bizTag);
        return rows.isEmpty() ? null : rows.get(0);
    }

    private void insert(String bizTag, long maxId, int step, String description) throws SQLException {
        try (Connection connection = dataSource.getConnection()) {
            Jdbc.autoCommit(connection, c -> Jdbc.update(c, insert, NO_TIMEOUT, bizTag, maxId, step, description));
        }
    }
}
