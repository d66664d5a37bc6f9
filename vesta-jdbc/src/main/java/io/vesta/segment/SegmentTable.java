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
    private final boolean autoCreate;
    private final int defaultStep;
    // update_time is bookkeeping for operators, so it takes the database's clock (one clock for all nodes);
    // nothing in the allocation depends on it.
    private final String updateByTableStep;
    private final String updateByStep;
    private final String select;
    private final String insert;

    SegmentTable(DataSource dataSource, String table, boolean autoCreate, int defaultStep) {
        this.dataSource = dataSource;
        this.table = table;
        this.autoCreate = autoCreate;
        this.defaultStep = defaultStep;
        this.updateByTableStep = "UPDATE " + table + " SET max_id = max_id + step, update_time = CURRENT_TIMESTAMP WHERE biz_tag = ?";
        this.updateByStep = "UPDATE " + table + " SET max_id = max_id + ?, update_time = CURRENT_TIMESTAMP WHERE biz_tag = ?";
        this.select = "SELECT max_id, step FROM " + table + " WHERE biz_tag = ?";
        this.insert = "INSERT INTO " + table + " (biz_tag, max_id, step, description, update_time) VALUES (?, 1, ?, ?, CURRENT_TIMESTAMP)";
    }

    String table() {
        return table;
    }

    /**
     * Moves the tag's max_id forward by {@code step}, or by the table's own step when {@code step} is 0, and
     * returns the new max_id. A missing row is created first when automatic creation is on.
     */
    Allocation allocate(String bizTag, int step) throws SQLException {
        Allocation allocation = update(bizTag, step);
        if (allocation != null) {
            return allocation;
        }
        if (!autoCreate) {
            throw new UnknownBizTagException(bizTag, table);
        }
        // Two nodes may both find the row missing and both insert: the loser's INSERT fails on the primary key
        // (which SQLState depends on the database), so instead of classifying the error the UPDATE is simply
        // retried. If the row is there now, whoever inserted it, the allocation goes ahead.
        SQLException insertFailure = null;
        try {
            insert(bizTag);
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

    private void insert(String bizTag) throws SQLException {
        try (Connection connection = dataSource.getConnection()) {
            boolean autoCommit = connection.getAutoCommit();
            if (!autoCommit) {
                connection.setAutoCommit(true);
            }
            try (PreparedStatement insertRow = connection.prepareStatement(insert)) {
                insertRow.setString(1, bizTag);
                insertRow.setInt(2, defaultStep);
                insertRow.setString(3, "created on first use by Vesta");
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
