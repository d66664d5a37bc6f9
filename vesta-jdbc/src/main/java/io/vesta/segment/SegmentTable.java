package io.vesta.segment;

import io.vesta.jdbc.Jdbc;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLTimeoutException;
import java.time.Duration;
import java.util.List;

/**
 * The segment table through plain JDBC. Every allocation is one transaction: the UPDATE takes the row lock,
 * so two nodes allocating for the same tag are serialised by the database and the SELECT in the same
 * transaction reads the value this node's own UPDATE produced, never another node's.
 *
 * <p>Every statement carries the query timeout: a database that hangs rather than refuses (a row locked by a
 * forgotten transaction, a stalled disk) fails the statement once the timeout has passed, and the allocation's
 * transaction is rolled back whole, instead of holding the caller for as long as the driver would wait.
 */
final class SegmentTable {

    /** A step read back from the table, with the segment it produced: numbers in [maxId - step, maxId). */
    record Allocation(long maxId, int step, int tableStep) {
    }

    /**
     * SQLStates of a statement cancelled by its query timeout: PostgreSQL and H2 say 57014 (query canceled),
     * MariaDB 70100 (interrupted, its max_statement_time); drivers that know it throw {@link SQLTimeoutException}.
     */
    private static final List<String> CANCELLED_STATES = List.of("57014", "70100");
    /**
     * The SQLState of H2's own lock timeout (LOCK_TIMEOUT, 2 s by default), which H2 throws as a
     * {@link SQLTimeoutException} too: H2 does not cancel a statement waiting for a row lock at the query timeout,
     * so that wait ends at its lock timeout, and the failure is H2's, not this setting's.
     */
    private static final String H2_LOCK_TIMEOUT_STATE = "HYT00";

    private final DataSource dataSource;
    private final int timeoutSeconds;
    /** The setting's full name, for the message of a statement it cut short. */
    private final String timeoutSetting;
    private final String table;
    private final int defaultStep;
    // update_time is bookkeeping for operators, so it takes the database's clock (one clock for all nodes);
    // nothing in the allocation depends on it.
    private final String updateByTableStep;
    private final String updateByStep;
    private final String select;
    private final String insert;

    SegmentTable(DataSource dataSource, String table, int defaultStep, int timeoutSeconds, String timeoutSetting) {
        this.dataSource = dataSource;
        this.timeoutSeconds = timeoutSeconds;
        this.timeoutSetting = timeoutSetting;
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

    /** The step of a row created on first use, unless its caller gives another. */
    int defaultStep() {
        return defaultStep;
    }

    Duration timeout() {
        return Duration.ofSeconds(timeoutSeconds);
    }

    /** {@link #allocate(String, int, boolean, long, int)} creating a missing row with max_id 1 and the default step. */
    Allocation allocate(String bizTag, int step, boolean create) throws SQLException {
        return allocate(bizTag, step, create, 1, defaultStep);
    }

    /**
     * Moves the tag's max_id forward by {@code step}, or by the table's own step when {@code step} is 0, and
     * returns the new max_id. A missing row is created first (with step {@code firstStep}, and max_id
     * {@code firstId}, its first number) when {@code create} is set.
     */
    Allocation allocate(String bizTag, int step, boolean create, long firstId, int firstStep) throws SQLException {
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
            insert(bizTag, firstId, firstStep, "created on first use by Vesta");
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
                int rows = step == 0 ? timed("UPDATE", () -> Jdbc.update(c, updateByTableStep, timeoutSeconds, bizTag))
                        : timed("UPDATE", () -> Jdbc.update(c, updateByStep, timeoutSeconds, step, bizTag));
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
        List<long[]> rows = timed("SELECT", () -> Jdbc.query(connection, select, timeoutSeconds,
                row -> new long[] { row.getLong(1), row.getInt(2) }, bizTag));
        return rows.isEmpty() ? null : rows.get(0);
    }

    private void insert(String bizTag, long maxId, int step, String description) throws SQLException {
        try (Connection connection = dataSource.getConnection()) {
            Jdbc.autoCommit(connection, c -> timed("INSERT", () -> Jdbc.update(c, insert, timeoutSeconds, bizTag, maxId,
                    step, description)));
        }
    }

    /** A statement; run through {@link #timed}. */
    @FunctionalInterface
    private interface Statement<T> {
        T run() throws SQLException;
    }

    /**
     * Runs {@code statement}; one its query timeout cut short fails with a {@link SQLTimeoutException} that says so,
     * naming the table, the setting and its value, with the driver's own failure as the cause. A driver's wording of
     * a cancelled statement ("canceling statement due to user request") does not tell an operator which setting
     * fired.
     */
    private <T> T timed(String verb, Statement<T> statement) throws SQLException {
        long started = System.nanoTime();
        try {
            return statement.run();
        } catch (SQLException e) {
            if (cancelledByTimeout(e, System.nanoTime() - started)) {
                throw new SQLTimeoutException(verb + " on segment table " + table + " did not finish within "
                        + timeoutSetting + "=" + timeoutSeconds + "s (the row locked by another transaction, or the "
                        + "database not answering); rolled back: " + e.getMessage(), e.getSQLState(), e.getErrorCode(), e);
            }
            throw e;
        }
    }

    /**
     * Whether the query timeout ended the statement: the driver says so (a timeout exception or a cancelled
     * statement's SQLState), and the statement ran at least that long, so that a cancellation for another reason
     * (an operator's pg_cancel_backend) is not blamed on the setting.
     */
    private boolean cancelledByTimeout(SQLException e, long elapsedNanos) {
        boolean cancelled = CANCELLED_STATES.contains(e.getSQLState())
                || e instanceof SQLTimeoutException && !H2_LOCK_TIMEOUT_STATE.equals(e.getSQLState());
        return cancelled && elapsedNanos >= timeoutSeconds * 1_000_000_000L - 50_000_000L;
    }
}
