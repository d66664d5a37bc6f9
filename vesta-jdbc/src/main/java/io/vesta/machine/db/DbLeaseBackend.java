package io.vesta.machine.db;

import io.vesta.jdbc.Jdbc;
import io.vesta.jdbc.TableScript;
import io.vesta.machine.LeaseClaim;
import io.vesta.machine.LeaseClaimWalk.Attempt;
import io.vesta.machine.LeaseSettings;
import io.vesta.machine.LeasedMachineIdProvider;
import io.vesta.machine.MachineIdBlock;
import io.vesta.machine.MachineIdRange;
import io.vesta.machine.RecordLeaseBackend;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.NavigableMap;
import java.util.TreeMap;

/**
 * The lease table of a {@link DbMachineIdProvider}, every statement of it: rows claimed, renewed, released and ended,
 * fenced by the generation a block's rows are held under. A takeover matches only a row that still carries exactly
 * the generation, {@code lease_expiry} and {@code high_water} the taker read; the holder writes only under its
 * generation, an expiry above every one it wrote. Why that is race-free on PostgreSQL, MySQL/MariaDB and H2 (and why
 * no {@code SELECT ... FOR UPDATE}): docs/reliability.md, "Why the lease writes are safe". Every statement runs in
 * auto-commit, a take in one transaction, each with the query timeout.
 */
final class DbLeaseBackend
        extends RecordLeaseBackend<Long, DbLeaseBackend.Row, NavigableMap<Long, DbLeaseBackend.Row>> {

    /** An identifier, optionally schema-qualified: no quoting, so nothing the user typed can reach the SQL. */
    static final TableScript SCRIPT = new TableScript("io/vesta/machine/db", DbMachineIdProvider.DEFAULT_TABLE);
    private static final String COLUMNS = "machine_id, owner, lease_expiry, high_water, generation";
    private static final String SELECT = "SELECT " + COLUMNS + " FROM @ WHERE machine_id >= ? AND machine_id <= ?"
            + " ORDER BY machine_id";
    private static final String INSERT = "INSERT INTO @ (" + COLUMNS + ") VALUES (?, ?, ?, ?, ?)";
    private static final String TAKE_OVER = "UPDATE @ SET owner = ?, lease_expiry = ?, high_water = ?, generation = ?"
            + " WHERE machine_id = ? AND generation = ? AND lease_expiry = ? AND high_water = ?";
    private static final String WRITE = "UPDATE @ SET lease_expiry = ?, high_water = ?"
            + " WHERE machine_id >= ? AND machine_id <= ? AND generation = ?";
    private static final String END = "UPDATE @ SET lease_expiry = ?, generation = generation + 1"
            + " WHERE owner = ? AND generation = ? AND lease_expiry > ?";

    private final DataSource dataSource;
    private final String table;
    private final boolean initializeSchema;
    private final int queryTimeoutSeconds;

    DbLeaseBackend(DataSource dataSource, String table, boolean initializeSchema, LeaseSettings settings) {
        super(settings, "db", "table " + table, "row", "rows", System.getLogger(DbMachineIdProvider.class.getName()));
        this.dataSource = dataSource;
        this.table = table;
        this.initializeSchema = initializeSchema;
        // The lease rounded up to whole seconds: a statement that outlives the lease can no longer keep it.
        this.queryTimeoutSeconds = (int) Math.max(1, (leaseMillis + 999) / 1000);
    }

    /** A row as read. */
    record Row(long machineId, String owner, long leaseExpiry, long highWater, long generation)
            implements RecordLeaseBackend.Record {
        static Row of(ResultSet rs) throws SQLException {
            return new Row(rs.getLong(1), rs.getString(2), rs.getLong(3), rs.getLong(4), rs.getLong(5));
        }
    }

    String table() {
        return table;
    }

    int queryTimeoutSeconds() {
        return queryTimeoutSeconds;
    }

    @Override
    public String scope() {
        return table;
    }

    /** Creates the table if it does not exist, with the shipped script for this database. */
    void createTable() {
        try {
            create();
        } catch (SQLException e) {
            throw new IllegalStateException("Cannot create table " + table + ": " + e.getMessage(), e);
        }
    }

    private void create() throws SQLException {
        autoCommit(c -> {
            SCRIPT.create(c, table, queryTimeoutSeconds);
            return null;
        });
    }

    /** The block's rows, whole or not at all; the table first if the builder said so. */
    @Override
    public LeaseClaim<Long> claim(MachineIdRange range, int blockSize, boolean startUp) throws Exception {
        if (startUp && initializeSchema) {
            create();
        }
        return super.claim(range, blockSize, startUp);
    }

    @Override
    protected NavigableMap<Long, Row> read(MachineIdRange range) throws SQLException {
        return read(range.min(), range.max());
    }

    @Override
    protected NavigableMap<Long, Row> records(NavigableMap<Long, Row> snapshot) {
        return snapshot;
    }

    /**
     * Takes every row of the block in one transaction, or none: a machine ID without a row is inserted (the primary
     * key lets one INSERT win), a row is taken over only if it is still exactly as read, so that its
     * {@code high_water} is the one committed when it changes hands. Every row ends up under the claim's generation.
     */
    @Override
    protected Attempt<LeaseClaim<Long>> take(NavigableMap<Long, Row> snapshot, LeaseClaim<Long> next,
            List<Row> block, long now) throws SQLException {
        long first = next.block().first();
        long expiry = next.expiry();
        LeaseClaim<Long> taken = autoCommit(connection -> Jdbc.transactionUnlessLostRace(connection, c -> {
            for (int offset = 0; offset < block.size(); offset++) {
                Row row = block.get(offset);
                if (row == null) {
                    Jdbc.update(c, sql(INSERT), queryTimeoutSeconds, first + offset, owner, expiry, expiry,
                            next.fence());
                } else if (Jdbc.update(c, sql(TAKE_OVER), queryTimeoutSeconds, owner, expiry,
                        Math.max(row.highWater(), expiry), next.fence(), row.machineId(), row.generation(),
                        row.leaseExpiry(), row.highWater()) != 1) {
                    return null;
                }
            }
            return next;
        }));
        return taken != null ? Attempt.taken(taken) : Attempt.lost();
    }

    /**
     * One UPDATE over the block under the generation held, its expiry above every one written before, so that the rows
     * always change (MySQL with useAffectedRows counts an unchanged row as none). A row no longer under the generation
     * loses the whole block.
     */
    @Override
    public Renewal<Long> renew(LeaseClaim<Long> held, long expiry, long highWater) throws SQLException {
        return write(held, expiry, highWater) == held.block().size() ? Renewal.renewed(held.fence())
                : Renewal.lost(lostReason(held));
    }

    /** The renewal's statement with the release's expiry and mark: a no-op on rows taken over. */
    @Override
    public boolean release(LeaseClaim<Long> held, long now, long highWater) throws SQLException {
        return write(held, now, highWater) > 0;
    }

    private int write(LeaseClaim<Long> held, long expiry, long highWater) throws SQLException {
        MachineIdBlock block = held.block();
        return autoCommit(c -> Jdbc.update(c, sql(WRITE), queryTimeoutSeconds, expiry, highWater, block.first(),
                block.last(), held.fence()));
    }

    @Override
    protected boolean carries(Row row, Long generation) {
        return row.generation() == generation;
    }

    @Override
    protected long generation(Long generation) {
        return generation;
    }

    @Override
    protected NavigableMap<Long, Row> read(long min, long max) throws SQLException {
        NavigableMap<Long, Row> rows = new TreeMap<>();
        for (Row row : autoCommit(c -> Jdbc.query(c, sql(SELECT), queryTimeoutSeconds, Row::of, min, max))) {
            rows.put(row.machineId(), row);
        }
        return rows;
    }

    /**
     * One UPDATE of every live row under the holder's generation (a block shares one): lease end now, the next
     * generation, the high water kept. The holder's next renewal matches fewer rows and stops it for good.
     */
    @Override
    protected long end(Row row, long now) throws SQLException {
        return autoCommit(c -> Jdbc.update(c, sql(END), queryTimeoutSeconds, now, row.owner(), row.generation(), now));
    }

    /** The query timeout and the one second close() may wait for a heartbeat that is in the database. */
    @Override
    public Duration closeTimeout() {
        return Duration.ofSeconds(queryTimeoutSeconds).plus(LeasedMachineIdProvider.CLOSE_WAIT_FOR_STORE);
    }

    private String sql(String statement) {
        return statement.replace("@", table);
    }

    /** {@code work} on a connection of its own, in auto-commit. */
    private <T> T autoCommit(Jdbc.Work<T> work) throws SQLException {
        try (Connection connection = dataSource.getConnection()) {
            return Jdbc.autoCommit(connection, work);
        }
    }
}
