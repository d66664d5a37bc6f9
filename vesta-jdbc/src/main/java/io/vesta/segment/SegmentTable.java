package io.vesta.segment;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * The segment table through plain JDBC. Every allocation is one transaction: the UPDATE takes the row lock,
 * so two nodes allocating for the same tag are serialised by the database and the SELECT in the same
 * transaction reads the value this node's own UPDATE produced, never another node's.
 */
final class SegmentTable {

    /** A step read back from the table, with the segment it produced: numbers in [maxId - step, maxId). */
    record Allocation(long maxId, int step, int tableStep) {
    }

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
            boolean autoCommit = connection.getAutoCommit();
            if (autoCommit) {
                connection.setAutoCommit(false);
            }
            try {
                int rows;
                try (PreparedStatement update = connection.prepareStatement(step == 0 ? updateByTableStep : updateByStep)) {
                    if (step == 0) {
                        update.setString(1, bizTag);
                    } else {
                        update.setInt(1, step);
                        update.setString(2, bizTag);
                    }
                    rows = update.executeUpdate();
                }
                if (rows == 0) {
                    connection.rollback();
                    return null;
                }
                long maxId;
                int tableStep;
                try (PreparedStatement read = connection.prepareStatement(select)) {
                    read.setString(1, bizTag);
                    try (ResultSet row = read.executeQuery()) {
                        if (!row.next()) {
                            throw new SQLException("Row of bizTag '" + bizTag + "' in " + table + " vanished inside the allocating transaction");
                        }
                        maxId = row.getLong(1);
                        tableStep = row.getInt(2);
                    }
                }
                if (tableStep < 1) {
                    // The UPDATE by the table's step would have moved nothing (or backwards): never commit that.
                    throw new IllegalStateException("step of bizTag '" + bizTag + "' in " + table + " must be at least 1, was " + tableStep);
                }
                connection.commit();
                return new Allocation(maxId, step == 0 ? tableStep : step, tableStep);
            } catch (SQLException | RuntimeException e) {
                rollbackQuietly(connection, e);
                throw e;
            } finally {
                if (autoCommit) {
                    restoreAutoCommit(connection);
                }
            }
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
        try (Connection connection = dataSource.getConnection();
             PreparedStatement read = connection.prepareStatement(select)) {
            read.setString(1, bizTag);
            try (ResultSet row = read.executeQuery()) {
                return row.next() ? new long[] { row.getLong(1), row.getInt(2) } : null;
            }
        }
    }

    private void insert(String bizTag, long maxId, int step, String description) throws SQLException {
        try (Connection connection = dataSource.getConnection()) {
            boolean autoCommit = connection.getAutoCommit();
            if (!autoCommit) {
                connection.setAutoCommit(true);
            }
            try (PreparedStatement insertRow = connection.prepareStatement(insert)) {
                insertRow.setString(1, bizTag);
                insertRow.setLong(2, maxId);
                insertRow.setInt(3, step);
                insertRow.setString(4, description);
                insertRow.executeUpdate();
            } finally {
                if (!autoCommit) {
                    connection.setAutoCommit(false);
                }
            }
        }
    }

    private static void rollbackQuietly(Connection connection, Exception failure) {
        try {
            connection.rollback();
        } catch (SQLException | RuntimeException e) {
            failure.addSuppressed(e);
        }
    }

    private static void restoreAutoCommit(Connection connection) {
        try {
            connection.setAutoCommit(true);
        } catch (SQLException ignored) {
            // A broken connection: the pool discards it on close, and the allocation's own outcome stands.
        }
    }
}
