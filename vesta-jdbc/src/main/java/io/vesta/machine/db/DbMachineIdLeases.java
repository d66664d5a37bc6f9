package io.vesta.machine.db;

import io.vesta.jdbc.Jdbc;
import io.vesta.machine.LeaseEnding;
import io.vesta.machine.MachineIdLeaseInfo;
import io.vesta.machine.MachineIdLeases;
import io.vesta.machine.MachineIdRange;
import io.vesta.machine.MachineIdUnavailableException;
import io.vesta.machine.db.LeaseTable.Row;
import io.vesta.time.TimeSource;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
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
    private final LeaseTable table;
    private final TimeSource timeSource;
    private final LongPredicate heldHere;

    /** @param heldHere whether this process holds a machine ID: such a lease is never ended from here */
    DbMachineIdLeases(DataSource dataSource, LeaseTable table, TimeSource timeSource, LongPredicate heldHere) {
        this.dataSource = dataSource;
        this.table = table;
        this.timeSource = timeSource;
        this.heldHere = heldHere;
    }

    @Override
    public String describe() {
        return "table " + table.name();
    }

    @Override
    public List<MachineIdLeaseInfo> list(MachineIdRange range) {
        long now = timeSource.currentTimeMillis();
        List<MachineIdLeaseInfo> leases = new ArrayList<>((int) range.size());
        try (Connection connection = dataSource.getConnection()) {
            Map<Long, Row> rows = Jdbc.autoCommit(connection, c -> table.rows(c, range.min(), range.max()));
            for (long id = range.min(); id <= range.max(); id++) {
                Row row = rows.get(id);
                leases.add(row == null ? MachineIdLeaseInfo.free(id) : info(row, now));
            }
            return leases;
        } catch (SQLException e) {
            throw new MachineIdUnavailableException("Cannot read the leases of range " + range + " from table "
                    + table.name() + ": " + e.getMessage(), e);
        }
    }

    @Override
    public Released release(long machineId, boolean force) {
        long now = timeSource.currentTimeMillis();
        try (Connection connection = dataSource.getConnection()) {
            return Jdbc.autoCommit(connection, c -> {
                Row row = table.row(c, machineId);
                if (row == null) {
                    throw new IllegalArgumentException("Table " + table.name() + " has no lease on machine ID "
                            + machineId + ": it was never leased, so any node may take it");
                }
                MachineIdLeaseInfo before = info(row, now);
                Released unchanged = LeaseEnding.check(before, force);
                if (unchanged != null) {
                    return unchanged;
                }
                int ended = table.end(c, before.owner(), before.generation(), now);
                if (ended == 0) {
                    throw LeaseEnding.changed(machineId);
                }
                Row after = table.row(c, machineId);
                return LeaseEnding.ended(before, after == null ? null : info(after, now), ended, "rows",
                        "table " + table.name(), LOG);
            });
        } catch (SQLException e) {
            throw new MachineIdUnavailableException("Cannot end the lease on machine ID " + machineId + " in table "
                    + table.name() + ": " + e.getMessage(), e);
        }
    }

    private MachineIdLeaseInfo info(Row row, long now) {
        return new MachineIdLeaseInfo(row.machineId(), row.leaseExpiry() > now ? MachineIdLeaseInfo.State.LIVE
                : MachineIdLeaseInfo.State.EXPIRED, row.owner(), Instant.ofEpochMilli(row.leaseExpiry()),
                Instant.ofEpochMilli(row.highWater()), row.generation(), heldHere.test(row.machineId()));
    }
}
