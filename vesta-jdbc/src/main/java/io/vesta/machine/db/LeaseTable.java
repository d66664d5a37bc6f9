package io.vesta.machine.db;

import io.vesta.jdbc.Jdbc;
import io.vesta.jdbc.TableScript;
import io.vesta.machine.MachineIdBlock;
import io.vesta.machine.RecordLeases;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.NavigableMap;
import java.util.TreeMap;

/**
 * The lease table's SQL, every statement of it in one place: what the provider's claims, renewals and releases run
 * ({@link DbLeaseBackend}) and what an operator's reads and ends run ({@link DbLeaseBackend#leases}). Each statement
 * carries the query timeout. Why the writes are race-free is told where they are used.
 */
final class LeaseTable {

    /** An identifier, optionally schema-qualified: no quoting, so nothing the user typed can reach the SQL. */
    static final TableScript SCRIPT = new TableScript("io/vesta/machine/db", DbMachineIdProvider.DEFAULT_TABLE);

    private final String table;
    private final int queryTimeoutSeconds;
    private final String selectRange;
    private final String selectOne;
    private final String insert;
    private final String takeOver;
    private final String renew;
    private final String end;

    LeaseTable(String table, int queryTimeoutSeconds) {
        this.table = table;
        this.queryTimeoutSeconds = queryTimeoutSeconds;
        String columns = "machine_id, owner, lease_expiry, high_water, generation";
        this.selectRange = "SELECT " + columns + " FROM " + table + " WHERE machine_id >= ? AND machine_id <= ?"
                + " ORDER BY machine_id";
        this.selectOne = "SELECT " + columns + " FROM " + table + " WHERE machine_id = ?";
        this.insert = "INSERT INTO " + table + " (" + columns + ") VALUES (?, ?, ?, ?, ?)";
        this.takeOver = "UPDATE " + table + " SET owner = ?, lease_expiry = ?, high_water = ?, generation = ?"
                + " WHERE machine_id = ? AND generation = ? AND lease_expiry = ? AND high_water = ?";
        this.renew = "UPDATE " + table + " SET lease_expiry = ?, high_water = ?"
                + " WHERE machine_id >= ? AND machine_id <= ? AND generation = ?";
        this.end = "UPDATE " + table + " SET lease_expiry = ?, generation = generation + 1"
                + " WHERE owner = ? AND generation = ? AND lease_expiry > ?";
    }

    String name() {
        return table;
    }

    int queryTimeoutSeconds() {
        return queryTimeoutSeconds;
    }

    /** A row as read. */
    record Row(long machineId, String owner, long leaseExpiry, long highWater, long generation)
            implements RecordLeases.Record {
        static Row of(ResultSet rs) throws SQLException {
            return new Row(rs.getLong(1), rs.getString(2), rs.getLong(3), rs.getLong(4), rs.getLong(5));
        }
    }

    /** Creates the table if it does not exist, with the shipped script for this database. */
    void create(Connection connection) throws SQLException {
        SCRIPT.create(connection, table, queryTimeoutSeconds);
    }

    /** The rows of machine IDs {@code min} to {@code max}, by machine ID. */
    NavigableMap<Long, Row> rows(Connection connection, long min, long max) throws SQLException {
        NavigableMap<Long, Row> rows = new TreeMap<>();
        for (Row row : Jdbc.query(connection, selectRange, queryTimeoutSeconds, Row::of, min, max)) {
            rows.put(row.machineId(), row);
        }
        return rows;
    }

    /** The row of {@code machineId}, or null. */
    Row row(Connection connection, long machineId) throws SQLException {
        List<Row> rows = Jdbc.query(connection, selectOne, queryTimeoutSeconds, Row::of, machineId);
        return rows.isEmpty() ? null : rows.get(0);
    }

    /** A new row, its high water its expiry; fails on the primary key when another node inserted it first. */
    void insert(Connection connection, long machineId, String owner, long expiry, long generation) throws SQLException {
        Jdbc.update(connection, insert, queryTimeoutSeconds, machineId, owner, expiry, expiry, generation);
    }

    /** Takes {@code row} over for {@code owner} if it is still exactly as read; whether it was. */
    boolean takeOver(Connection connection, Row row, String owner, long expiry, long generation) throws SQLException {
        return Jdbc.update(connection, takeOver, queryTimeoutSeconds, owner, expiry, Math.max(row.highWater(), expiry),
                generation, row.machineId(), row.generation(), row.leaseExpiry(), row.highWater()) == 1;
    }

    /**
     * The holder's one write to its rows, renewal and release alike: one statement over the block, conditional on the
     * generation it holds. How many rows it wrote: the whole block unless some were taken over.
     */
    int write(Connection connection, MachineIdBlock block, long generation, long leaseExpiry, long highWater)
            throws SQLException {
        return Jdbc.update(connection, renew, queryTimeoutSeconds, leaseExpiry, highWater, block.first(), block.last(),
                generation);
    }

    /** Ends the live lease of {@code owner} under {@code generation} at {@code now}: every row of its block. */
    int end(Connection connection, String owner, long generation, long now) throws SQLException {
        return Jdbc.update(connection, end, queryTimeoutSeconds, now, owner, generation, now);
    }
}
