package io.vesta.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * How Vesta's tables (the machine-ID leases, the segments) talk JDBC: a transaction that is rolled back whole when it
 * does not finish, a statement that runs in auto-commit on a pooled connection whatever state the pool left it in,
 * statements bounded by a query timeout, and which failures mean another node's write came first.
 */
public final class Jdbc {

    /** H2's "concurrent update" error: its way of telling a conditional write lost to another transaction. */
    private static final int H2_CONCURRENT_UPDATE = 90131;
    /** MySQL/MariaDB: deadlock found (state 40001) and lock wait timeout (state HY000). */
    private static final int MYSQL_DEADLOCK = 1213;
    private static final int MYSQL_LOCK_WAIT_TIMEOUT = 1205;

    private Jdbc() {
    }

    /** Work on a connection. */
    @FunctionalInterface
    public interface Work<T> {
        T run(Connection connection) throws SQLException;
    }

    /**
     * Runs {@code work} as one transaction: committed when it returns a result, rolled back when it returns null or
     * fails (the failure is then thrown). The connection's auto-commit is restored afterwards.
     */
    public static <T> T transaction(Connection connection, Work<T> work) throws SQLException {
        boolean autoCommit = connection.getAutoCommit();
        if (autoCommit) {
            connection.setAutoCommit(false);
        }
        try {
            T result;
            try {
                result = work.run(connection);
            } catch (SQLException | RuntimeException | Error e) {
                rollback(connection, e);
                throw e;
            }
            if (result != null) {
                connection.commit();
            } else {
                connection.rollback();
            }
            return result;
        } finally {
            if (autoCommit) {
                setAutoCommitQuietly(connection, true);
            }
        }
    }

    /**
     * {@link #transaction}, with a write of {@code work} that lost a race to another transaction ({@link #lostRace})
     * told as null, as when {@code work} itself found it lost: either way it is rolled back, nothing left changed.
     */
    public static <T> T transactionUnlessLostRace(Connection connection, Work<T> work) throws SQLException {
        return transaction(connection, c -> {
            try {
                return work.run(c);
            } catch (SQLException e) {
                if (lostRace(e)) {
                    return null;
                }
                throw e;
            }
        });
    }

    /**
     * Runs {@code work} with each statement its own transaction, as the connection's auto-commit was before: a pooled
     * connection left in manual commit would keep one snapshot across the SELECTs (REPEATABLE READ) and never see the
     * rows others wrote, and would leave the writes to the pool to commit or roll back.
     */
    public static <T> T autoCommit(Connection connection, Work<T> work) throws SQLException {
        boolean autoCommit = connection.getAutoCommit();
        if (!autoCommit) {
            connection.setAutoCommit(true);
        }
        try {
            return work.run(connection);
        } finally {
            if (!autoCommit) {
                setAutoCommitQuietly(connection, false);
            }
        }
    }

    /** Reads one value of a result row. */
    @FunctionalInterface
    public interface RowMapper<T> {
        T map(ResultSet row) throws SQLException;
    }

    /** Runs the update or insert {@code sql} with {@code parameters}; how many rows it wrote. */
    public static int update(Connection connection, String sql, int queryTimeoutSeconds, Object... parameters)
            throws SQLException {
        try (PreparedStatement statement = prepare(connection, sql, queryTimeoutSeconds, parameters)) {
            return statement.executeUpdate();
        }
    }

    /** Runs the query {@code sql} with {@code parameters}; its rows, each read by {@code mapper}. */
    public static <T> List<T> query(Connection connection, String sql, int queryTimeoutSeconds, RowMapper<T> mapper,
            Object... parameters) throws SQLException {
        try (PreparedStatement statement = prepare(connection, sql, queryTimeoutSeconds, parameters);
                ResultSet rows = statement.executeQuery()) {
            List<T> values = new ArrayList<>();
            while (rows.next()) {
                values.add(mapper.map(rows));
            }
            return values;
        }
    }

    /** A statement bounded by {@code queryTimeoutSeconds} (none for 0), with {@code parameters} set in order. */
    private static PreparedStatement prepare(Connection connection, String sql, int queryTimeoutSeconds,
            Object... parameters) throws SQLException {
        PreparedStatement statement = connection.prepareStatement(sql);
        try {
            if (queryTimeoutSeconds > 0) {
                statement.setQueryTimeout(queryTimeoutSeconds);
            }
            for (int i = 0; i < parameters.length; i++) {
                statement.setObject(i + 1, parameters[i]);
            }
            return statement;
        } catch (SQLException | RuntimeException e) {
            statement.close();
            throw e;
        }
    }

    /**
     * Whether a write failed because another transaction's came first: a unique violation (SQLState class 23), a
     * serialization failure (class 40, or H2's concurrent update), a deadlock or lock wait timeout of MySQL/MariaDB.
     */
    public static boolean lostRace(SQLException e) {
        for (SQLException s = e; s != null; s = s.getNextException()) {
            String state = s.getSQLState();
            if (state != null && (state.startsWith("23") || state.startsWith("40"))) {
                return true;
            }
            if (s.getErrorCode() == H2_CONCURRENT_UPDATE || s.getErrorCode() == MYSQL_DEADLOCK
                    || s.getErrorCode() == MYSQL_LOCK_WAIT_TIMEOUT) {
                return true;
            }
        }
        return false;
    }

    private static void rollback(Connection connection, Throwable failure) {
        try {
            connection.rollback();
        } catch (SQLException | RuntimeException e) {
            failure.addSuppressed(e);
        }
    }

    private static void setAutoCommitQuietly(Connection connection, boolean autoCommit) {
        try {
            connection.setAutoCommit(autoCommit);
        } catch (SQLException ignored) {
            // A broken connection: the pool discards it, and the work's own outcome stands.
        }
    }
}
