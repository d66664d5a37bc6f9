package io.vesta.machine.db;

import io.vesta.machine.LeaseEnding;
import io.vesta.machine.MachineIdLeaseInfo;
import io.vesta.machine.MachineIdLeases;
import io.vesta.machine.MachineIdRange;
import io.vesta.machine.MachineIdUnavailableException;
import io.vesta.time.TimeSource;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongPredicate;

/**
 * The rows of a {@link DbMachineIdProvider}'s table as an operator sees them, and ending a lease.
 *
 * <p>Ending a lease is one statement, {@code UPDATE ... SET lease_expiry = now, generation = generation + 1 WHERE
 * owner = ? AND generation = ? AND lease_expiry > now}: every row its holder leased together (a block shares one
 * generation) at once. It leaves {@code high_water} as committed, and the holder never issues past a committed high
 * water; its next renewal, conditional on the old generation, matches fewer rows and stops it for good; whoever takes
 * a row next starts after that high water. A renewal that commits first only raises the high water the statement
 * keeps, and a takeover cannot commit in between, because the row is live.
 */
final class DbMachineIdLeases implements MachineIdLeases {

    private static final System.Logger LOG = System.getLogger(DbMachineIdLeases.class.getName());

    private final DataSource dataSource;
    private final String table;
    private final TimeSource timeSource;
    private final int queryTimeoutSeconds;
    private final LongPredicate heldHere;
    private final String selectRange;
    private final String selectOne;
    private final String end;

    /** @param heldHere whether this process holds a machine ID: such a lease is never ended from here */
    DbMachineIdLeases(DataSource dataSource, String table, TimeSource timeSource, int queryTimeoutSeconds,
            LongPredicate heldHere) {
        this.dataSource = dataSource;
        this.table = table;
        this.timeSource = timeSource;
        this.queryTimeoutSeconds = queryTimeoutSeconds;
        this.heldHere = heldHere;
        String columns = "machine_id, owner, lease_expiry, high_water, generation";
        this.selectRange = "SELECT " + columns + " FROM " + table + " WHERE machine_id >= ? AND machine_id <= ? ORDER BY machine_id";
        this.selectOne = "SELECT " + columns + " FROM " + table + " WHERE machine_id = ?";
        this.end = "UPDATE " + table + " SET lease_expiry = ?, generation = generation + 1"
                + " WHERE owner = ? AND generation = ? AND lease_expiry > ?";
    }

    @Override
    public String describe() {
        return "table " + table;
    }

    @Override
    public List<MachineIdLeaseInfo> list(MachineIdRange range) {
        long now = timeSource.currentTimeMillis();
        List<MachineIdLeaseInfo> leases = new ArrayList<>((int) range.size());
        try (Connection connection = dataSource.getConnection();
                PreparedStatement select = prepare(connection, selectRange)) {
            select.setLong(1, range.min());
            select.setLong(2, range.max());
            long next = range.min();
            try (ResultSet rs = select.executeQuery()) {
                while (rs.next()) {
                    MachineIdLeaseInfo row = info(rs, now);
                    while (next < row.machineId()) {
                        leases.add(MachineIdLeaseInfo.free(next++));
                    }
                    leases.add(row);
                    next = row.machineId() + 1;
                }
            }
            while (next <= range.max()) {
                leases.add(MachineIdLeaseInfo.free(next++));
            }
            return leases;
        } catch (SQLException e) {
            throw new MachineIdUnavailableException("Cannot read the leases of range " + range + " from table " + table
                    + ": " + e.getMessage(), e);
        }
    }

    @Override
    public Released release(long machineId, boolean force) {
        long now = timeSource.currentTimeMillis();
        try (Connection connection = dataSource.getConnection()) {
            MachineIdLeaseInfo before = read(connection, machineId, now);
            if (before == null) {
                throw new IllegalArgumentException("Table " + table + " has no lease on machine ID " + machineId
                        + ": it was never leased, so any node may take it");
            }
            Released unchanged = LeaseEnding.check(before, force);
            if (unchanged != null) {
                return unchanged;
            }
            int ended;
            try (PreparedStatement update = prepare(connection, end)) {
                update.setLong(1, now);
                update.setString(2, before.owner());
                update.setLong(3, before.generation());
                update.setLong(4, now);
                ended = update.executeUpdate();
            }
            if (ended == 0) {
                throw LeaseEnding.changed(machineId);
            }
            return LeaseEnding.ended(before, read(connection, machineId, now), ended, "rows", "table " + table, LOG);
        } catch (SQLException e) {
            throw new MachineIdUnavailableException("Cannot end the lease on machine ID " + machineId + " in table "
                    + table + ": " + e.getMessage(), e);
        }
    }

    private MachineIdLeaseInfo read(Connection connection, long machineId, long now) throws SQLException {
        try (PreparedStatement select = prepare(connection, selectOne)) {
            select.setLong(1, machineId);
            try (ResultSet rs = select.executeQuery()) {
                return rs.next() ? info(rs, now) : null;
            }
        }
    }

    private MachineIdLeaseInfo info(ResultSet rs, long now) throws SQLException {
        long machineId = rs.getLong(1);
        long expiry = rs.getLong(3);
        return new MachineIdLeaseInfo(machineId, expiry > now ? MachineIdLeaseInfo.State.LIVE : MachineIdLeaseInfo.State.EXPIRED,
                rs.getString(2), Instant.ofEpochMilli(expiry), Instant.ofEpochMilli(rs.getLong(4)), rs.getLong(5),
                heldHere.test(machineId));
    }

    private PreparedStatement prepare(Connection connection, String sql) throws SQLException {
        PreparedStatement statement = connection.prepareStatement(sql);
        statement.setQueryTimeout(queryTimeoutSeconds);
        return statement;
    }
}
