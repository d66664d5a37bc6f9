package io.vesta.machine.db;

import io.vesta.InvalidSettingException;
import io.vesta.jdbc.TableScript;
import io.vesta.machine.DefaultOwner;
import io.vesta.machine.LeaseClaimWalk;
import io.vesta.machine.LeaseLifecycle;
import io.vesta.machine.MachineIdBlock;
import io.vesta.machine.MachineIdGrant;
import io.vesta.machine.MachineIdLease;
import io.vesta.machine.MachineIdLeases;
import io.vesta.machine.MachineIdProvider;
import io.vesta.machine.MachineIdRange;
import io.vesta.machine.MachineIdUnavailableException;
import io.vesta.time.TimeSource;

import javax.sql.DataSource;
import java.lang.System.Logger.Level;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.NavigableMap;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Machine IDs leased from a shared table, so that any number of nodes whose addresses come and go draw from
 * one range without a list to maintain. Works with any JDBC {@link DataSource}; the table's DDL for
 * PostgreSQL, MySQL/MariaDB and H2 ships as {@code io/vesta/machine/db/schema-*.sql}.
 *
 * <p>Each row leases one machine ID to an owner until {@code lease_expiry}; a background heartbeat renews it.
 * A node takes, in this order, the row its owner holds or last held (a restart gets its ID back), else the
 * lowest ID of the range that has no row or whose lease has expired. A node that holds a block of {@code k} machine
 * IDs ({@link #acquire(MachineIdRange, int)}) leases the {@code k} rows of one of the range's aligned blocks in one
 * transaction, whole or not at all, under one generation; one statement renews them and one releases them, and a
 * block is free only when every one of its rows is.
 *
 * <p>Why two nodes never issue the same ID: the holder issues only while its local lease ({@link #lease()})
 * is held, and that lease is never extended past a {@code high_water} already committed to the row. Whoever
 * takes the row over starts after the {@code high_water} that was committed at the moment it took the row
 * ({@link #notBefore()}): a takeover only succeeds if the row still carries exactly the generation,
 * {@code lease_expiry} and {@code high_water} the taker read, so a renewal that commits between the taker's read
 * and its write makes the takeover match no row, and a takeover that commits first moves the generation on, so
 * the renewal matches no row. Both bounds are the holder's own clock readings, so this holds however far apart
 * the two nodes' clocks are.
 *
 * <p>Whose clock decides that a lease is over: the taker's, compared with the {@code lease_expiry} the holder
 * wrote by its own clock. That choice decides only <em>when</em> a row may change hands, never whether IDs can
 * meet: a taker whose clock runs ahead takes the row early (the holder still issues up to its confirmed expiry,
 * below the taker's start, and learns at its next heartbeat that the row is gone), one whose clock runs behind
 * waits longer or refuses to issue until its clock passes the high water.
 *
 * <p>Every statement carries a query timeout of the lease rounded up to whole seconds ({@link #queryTimeout()}),
 * and {@link #close()} returns within {@link #closeTimeout()} even when a heartbeat hangs in the driver. The local
 * lease, the heartbeat thread, losing the row and the bounded close are the shared {@link LeaseLifecycle}'s; this
 * class holds the SQL and what makes a takeover safe.
 */
public final class DbMachineIdProvider implements MachineIdProvider {

    /** The default table name. */
    public static final String DEFAULT_TABLE = "vesta_machine";
    /** The default lease: how long a row stays this node's after its last successful heartbeat. */
    public static final Duration DEFAULT_LEASE = LeaseLifecycle.DEFAULT_LEASE;
    /** The default interval between heartbeats. */
    public static final Duration DEFAULT_HEARTBEAT = Duration.ofSeconds(5);
    /** The shortest lease that may be configured. */
    public static final Duration MIN_LEASE = Duration.ofSeconds(1);
    /** The longest lease that may be configured. */
    public static final Duration MAX_LEASE = Duration.ofHours(1);
    /** The shortest heartbeat interval that may be configured. */
    public static final Duration MIN_HEARTBEAT = Duration.ofMillis(10);
    /** The longest owner name the shipped schemas hold. */
    public static final int MAX_OWNER_LENGTH = 255;
    /**
     * How long {@link #close()} waits for a heartbeat (or an acquire) that is in the database before it gives up
     * releasing the row: a healthy heartbeat takes milliseconds, a stuck one may take minutes.
     */
    private static final long CLOSE_WAIT_FOR_DATABASE_MILLIS = 1_000;

    private static final System.Logger LOG = System.getLogger(DbMachineIdProvider.class.getName());

    /** An identifier, optionally schema-qualified: no quoting, so nothing the user typed can reach the SQL. */
    private static final TableScript SCRIPT = new TableScript("io/vesta/machine/db", DEFAULT_TABLE);

    /** H2's "concurrent update" error: its way of telling a conditional write lost to another transaction. */
    private static final int H2_CONCURRENT_UPDATE = 90131;
    /** MySQL/MariaDB: deadlock found (state 40001) and lock wait timeout (state HY000). */
    private static final int MYSQL_DEADLOCK = 1213;
    private static final int MYSQL_LOCK_WAIT_TIMEOUT = 1205;

    private final DataSource dataSource;
    private final String table;
    private final String owner;
    private final long leaseMillis;
    private final long heartbeatMillis;
    private final boolean initializeSchema;
    private final TimeSource timeSource;
    private final int queryTimeoutSeconds;
    /**
     * The local lease, the heartbeat thread, {@code closed} and {@code lost}. It never holds a lock across a JDBC
     * call, so close() can revoke the lease at once, and a heartbeat that returns after close() began cannot
     * revive it.
     */
    private final LeaseLifecycle lifecycle;
    /**
     * Held across every JDBC call of acquire, heartbeat and release, so that they never overlap and see each
     * other's fields. close() never waits for it beyond a bound: it may be held by a call hanging in the driver.
     */
    private final ReentrantLock database = new ReentrantLock();

    private final DbMachineIdLeases leases;
    private final String selectRange;
    private final String selectOne;
    private final String insert;
    private final String takeOver;
    private final String renew;

    private volatile Long notBefore;
    private volatile String takenFrom;
    /** The machine IDs this node holds; set by acquire under the database lock, before the lifecycle publishes them. */
    private volatile MachineIdBlock block;
    /** What acquire claimed in, so that a regain claims the same way; set under the database lock. */
    private MachineIdRange range;
    private int blockSize;
    /** The generation this node holds the row under; every write of ours is conditional on it. */
    private long generation;
    /** The highest lease expiry this node has tried to write, committed or not; read by close() for its log. */
    private volatile long lastWrittenExpiry;
    /** The last expiry (and high-water mark) known to be committed: the node never issues past it. */
    private long confirmedExpiry;
    /** Test seam: runs between the SELECT that found a row takeable and the UPDATE that takes it. */
    volatile Runnable beforeTakeOver;

    private DbMachineIdProvider(Builder builder) {
        this.dataSource = builder.dataSource;
        this.table = builder.table;
        this.owner = builder.owner;
        this.leaseMillis = builder.lease.toMillis();
        this.heartbeatMillis = builder.heartbeat.toMillis();
        this.initializeSchema = builder.initializeSchema;
        this.timeSource = builder.timeSource;
        this.queryTimeoutSeconds = (int) Math.max(1, (leaseMillis + 999) / 1000);
        this.lifecycle = new LeaseLifecycle(owner, table, "heartbeat", timeSource, LOG).regainWith(this::regain);
        this.leases = new DbMachineIdLeases(dataSource, table, timeSource, queryTimeoutSeconds, id -> {
            MachineIdBlock held = block;
            return held != null && id >= held.first() && id <= held.last() && !lifecycle.isClosed() && !lifecycle.isLost();
        });
        String columns = "machine_id, owner, lease_expiry, high_water, generation";
        this.selectRange = "SELECT " + columns + " FROM " + table + " WHERE machine_id >= ? AND machine_id <= ? ORDER BY machine_id";
        this.selectOne = "SELECT " + columns + " FROM " + table + " WHERE machine_id = ?";
        this.insert = "INSERT INTO " + table + " (" + columns + ") VALUES (?, ?, ?, ?, ?)";
        this.takeOver = "UPDATE " + table + " SET owner = ?, lease_expiry = ?, high_water = ?, generation = ?"
                + " WHERE machine_id = ? AND generation = ? AND lease_expiry = ? AND high_water = ?";
        this.renew = "UPDATE " + table + " SET lease_expiry = ?, high_water = ? WHERE machine_id >= ? AND machine_id <= ?"
                + " AND generation = ?";
    }

    public static Builder builder(DataSource dataSource) {
        return new Builder(dataSource);
    }

    /*
     * Why acquiring is race-free on every database: a row changes hands only through
     *   - INSERT of a new row: the PRIMARY KEY lets exactly one INSERT per machine_id commit; every other
     *     one fails with a unique violation (SQLState class 23), which we read as "lost the race";
     *   - UPDATE ... SET generation = g + 1 ... WHERE machine_id = ? AND generation = g AND lease_expiry = e
     *     AND high_water = h, where g, e and h are what the acquirer read. A single UPDATE locks the row and
     *     evaluates its WHERE against the latest committed version (PostgreSQL's READ COMMITTED re-checks the
     *     updated row, InnoDB's UPDATE is a locking read of the newest version whatever the isolation level, H2
     *     locks the row and re-reads it), so of all acquirers that read the row exactly one moves it to g + 1
     *     and the others update no row. Under REPEATABLE READ or SERIALIZABLE PostgreSQL and H2 report a
     *     serialization failure (class 40 or H2's 90131) instead; that is a lost race too.
     * The generation alone would fence acquirers from each other, but not from the holder: its heartbeat
     * renews under the same generation, so a takeover guarded by the generation only could commit after a
     * renewal it never saw and start after a high water the holder had already passed. Hence the takeover also
     * requires the lease_expiry and high_water it read. The holder writes the row under its generation only
     *   - in a heartbeat, whose expiry (= high water) is strictly above every expiry it ever wrote, so a
     *     renewal that commits after the taker's read takes the values the taker read out of the row;
     *   - in the release of close(), after its lease was revoked, with a high water at or above every ID it
     *     issued and every mark it inherited: should that happen to bring back values a taker read, the
     *     takeover is right to match, since they then bound everything the holder issued.
     * So whenever the takeover matches, the row is still takeable for the reason the taker saw and its
     * high_water bounds every ID the holder issued or may still issue (the holder never issues past a
     * committed high water); and once the takeover commits, the generation has moved on and no renewal or
     * release of the holder can match the row again.
     * The generation only grows, so a write conditional on a generation that was ever replaced can never
     * succeed again (no ABA). Every statement runs in auto-commit, so the SELECT that picks candidates never
     * reads a stale snapshot. No SELECT ... FOR UPDATE: it cannot lock a row that does not exist yet, and its
     * gap-locking differs between the three databases.
     */
    @Override
    public long acquire(MachineIdRange range) {
        return acquire(range, 1);
    }

    /**
     * Leases a whole aligned block of {@code blockSize} machine IDs, one row each, in one transaction: all of the block
     * or none of it. The rows are renewed by one statement and released together; a row of the block found in other
     * hands ends the lease on all of them.
     */
    @Override
    public long acquire(MachineIdRange range, int blockSize) {
        MachineIdRange.requireBlockSize("blockSize", blockSize);
        database.lock();
        try {
            lifecycle.requireUnused("DbMachineIdProvider", () -> block.describe());
            Claim claim = claimBlock(range, blockSize, initializeSchema, true);
            this.range = range;
            this.blockSize = blockSize;
            // Set before the start, under the database lock that heartbeats and the release take too; only the
            // start publishes the ID.
            hold(claim, blockSize);
            if (!lifecycle.start(block, claim.expiry, claim.notBefore, Duration.ofMillis(heartbeatMillis), this::heartbeat)) {
                throw closedWhileAcquiring(claim);
            }
            LOG.log(Level.INFO, () -> "Leased " + block.describe() + " from table " + table + " as owner '" + owner
                    + "'" + (claim.takenFrom != null ? ", taken over from '" + claim.takenFrom + "' (IDs start after "
                    + Instant.ofEpochMilli(claim.notBefore) + ")" : "") + "; lease until " + Instant.ofEpochMilli(claim.expiry));
            return claim.machineId;
        } finally {
            database.unlock();
        }
    }

    private Claim claimBlock(MachineIdRange range, int blockSize, boolean createTable, boolean takeOwnLive) {
        try (Connection connection = dataSource.getConnection()) {
            return inAutoCommit(connection, () -> {
                if (createTable) {
                    createTable(connection);
                }
                return claim(connection, range, blockSize, takeOwnLive);
            });
        } catch (SQLException e) {
            throw new MachineIdUnavailableException("Cannot lease " + (blockSize == 1 ? "a machine ID" : "a block of "
                    + blockSize + " machine IDs") + " from table " + table + " (range " + range + ", owner '" + owner
                    + "'): " + e.getMessage(), e);
        }
    }

    private void hold(Claim claim, int blockSize) {
        this.block = new MachineIdBlock(claim.machineId, blockSize);
        this.generation = claim.generation;
        this.lastWrittenExpiry = claim.expiry;
        this.confirmedExpiry = claim.expiry;
        this.notBefore = claim.notBefore;
        this.takenFrom = claim.takenFrom;
    }

    /**
     * The lifecycle's regain after the rows were lost: the claim of acquire again, in the same range and block size
     * (the row this owner last held if its lease has ended, else the lowest free block; never a live row of this owner,
     * which is another process's), published as a new grant. A free row's
     * {@code high_water} is its {@code notBefore}, as at a takeover.
     */
    private LeaseLifecycle.Regained regain() throws InterruptedException {
        database.lockInterruptibly();
        try {
            Claim claim = claimBlock(range, blockSize, false, false);
            hold(claim, blockSize);
            return new LeaseLifecycle.Regained(block, claim.expiry, claim.notBefore,
                    () -> LOG.log(Level.INFO, closedWhileAcquiring(claim).getMessage()));
        } finally {
            database.unlock();
        }
    }

    /**
     * close() ran while the claim was in the database and found no machine ID to release: nothing was issued
     * under the claim, so give the row back here, where the database is ours anyway.
     */
    private IllegalStateException closedWhileAcquiring(Claim claim) {
        long now = timeSource.currentTimeMillis();
        String outcome;
        try {
            long mark = LeaseLifecycle.releaseMark(claim.notBefore, claim.expiry, now);
            outcome = releaseRows(block, claim.generation, mark, now) > 0
                    ? "the rows were released"
                    : "the rows had already changed hands";
        } catch (SQLException | RuntimeException e) {
            outcome = "the rows could not be released (" + e.getMessage() + ") and become free when their lease ends at "
                    + Instant.ofEpochMilli(claim.expiry);
        }
        return new IllegalStateException("This DbMachineIdProvider was closed while it leased " + block.describe()
                + " from table " + table + "; " + outcome);
    }

    private Claim claim(Connection connection, MachineIdRange range, int blockSize, boolean takeOwnLive) throws SQLException {
        return LeaseClaimWalk.claim(range, blockSize, owner, takeOwnLive, timeSource,
                new LeaseClaimWalk.Store<NavigableMap<Long, Row>, Row, Claim, SQLException>() {
                    @Override
                    public NavigableMap<Long, Row> read() throws SQLException {
                        return readRange(connection, range);
                    }

                    @Override
                    public NavigableMap<Long, Row> records(NavigableMap<Long, Row> snapshot) {
                        return snapshot;
                    }

                    @Override
                    public LeaseClaimWalk.Attempt<Claim> take(NavigableMap<Long, Row> snapshot, long first, List<Row> block,
                            long now) throws SQLException {
                        Claim claim = takeBlock(connection, first, block, now);
                        return claim != null ? LeaseClaimWalk.Attempt.taken(claim) : LeaseClaimWalk.Attempt.lost();
                    }

                    @Override
                    public RuntimeException rangeFull(MachineIdRange range, int blockSize, Collection<Row> rows, long now) {
                        return DbMachineIdProvider.this.rangeFull(range, blockSize, rows, now);
                    }

                    @Override
                    public RuntimeException gaveUp(int rounds) {
                        return new MachineIdUnavailableException("Gave up leasing " + (blockSize == 1 ? "a machine ID"
                                : "a block of " + blockSize + " machine IDs") + " from table " + table + " (range " + range
                                + ") after " + rounds + " rounds in which every candidate changed before this node could"
                                + " take it (other nodes claiming the same IDs, or a live process of owner '" + owner
                                + "' renewing its row)");
                    }
                });
    }

    private MachineIdUnavailableException rangeFull(MachineIdRange range, int blockSize, Collection<Row> rows, long now) {
        long live = rows.stream().filter(r -> r.leaseExpiry > now).count();
        long nextExpiry = rows.stream().mapToLong(r -> r.leaseExpiry).filter(e -> e > now).min().orElse(now);
        if (blockSize == 1) {
            return new MachineIdUnavailableException("No machine ID is free in range " + range + " of table " + table + ": "
                    + live + " rows hold a live lease on all " + range.size() + " IDs of the range (the first lease ends at "
                    + Instant.ofEpochMilli(nextExpiry) + "). Stop a node, widen the range, or wait for a lease to end.");
        }
        return new MachineIdUnavailableException("No block of " + blockSize + " machine IDs is free in range " + range
                + " of table " + table + ": the range holds " + range.blocks(blockSize) + " blocks of " + blockSize + " (so "
                + range.blocks(blockSize) + " nodes with this block size), and each has a live lease on at least one of its"
                + " IDs (" + live + " live rows; the first lease ends at " + Instant.ofEpochMilli(nextExpiry) + "). Stop a"
                + " node, widen the range, lower the block size, or wait for a lease to end.");
    }

    private NavigableMap<Long, Row> readRange(Connection connection, MachineIdRange range) throws SQLException {
        try (PreparedStatement select = prepare(connection, selectRange)) {
            select.setLong(1, range.min());
            select.setLong(2, range.max());
            try (ResultSet rs = select.executeQuery()) {
                NavigableMap<Long, Row> rows = new TreeMap<>();
                while (rs.next()) {
                    Row row = Row.of(rs);
                    rows.put(row.machineId, row);
                }
                return rows;
            }
        }
    }

    private Row readRow(Connection connection, long id) throws SQLException {
        try (PreparedStatement select = prepare(connection, selectOne)) {
            select.setLong(1, id);
            try (ResultSet rs = select.executeQuery()) {
                return rs.next() ? Row.of(rs) : null;
            }
        }
    }

    /**
     * Takes every machine ID of a block in one transaction, or none: a machine ID without a row is inserted, a row is
     * taken over only if it is still exactly as read, so that its {@code high_water} is the high water committed when
     * it changes hands. Every row of the block ends up under one generation, above each row's before, so that the
     * holder's renewal and release are one statement conditional on it. Null when a write lost a race (nothing is
     * then left changed).
     */
    private Claim takeBlock(Connection connection, long first, List<Row> block, long now) throws SQLException {
        long expiry = now + leaseMillis;
        long generation = 1;
        Long notBefore = null;
        String from = null;
        for (Row row : block) {
            if (row != null) {
                generation = Math.max(generation, row.generation + 1);
                notBefore = notBefore == null ? row.highWater : Math.max(notBefore, row.highWater);
                if (from == null && !row.owner.equals(owner)) {
                    from = row.owner;
                }
            }
        }
        Runnable hook = beforeTakeOver;
        if (hook != null) {
            hook.run();
        }
        long held = generation;
        boolean taken = inTransaction(connection, () -> {
            for (int offset = 0; offset < block.size(); offset++) {
                Row row = block.get(offset);
                if (row == null ? !insert(connection, first + offset, expiry, held) : !takeOver(connection, row, expiry, held)) {
                    return false;
                }
            }
            return true;
        });
        return taken ? new Claim(first, held, expiry, notBefore, from) : null;
    }

    private boolean insert(Connection connection, long id, long expiry, long generation) throws SQLException {
        try (PreparedStatement insert = prepare(connection, this.insert)) {
            insert.setLong(1, id);
            insert.setString(2, owner);
            insert.setLong(3, expiry);
            insert.setLong(4, expiry);
            insert.setLong(5, generation);
            insert.executeUpdate();
            return true;
        }
    }

    private boolean takeOver(Connection connection, Row row, long expiry, long generation) throws SQLException {
        try (PreparedStatement update = prepare(connection, takeOver)) {
            update.setString(1, owner);
            update.setLong(2, expiry);
            update.setLong(3, Math.max(row.highWater, expiry));
            update.setLong(4, generation);
            update.setLong(5, row.machineId);
            update.setLong(6, row.generation);
            update.setLong(7, row.leaseExpiry);
            update.setLong(8, row.highWater);
            return update.executeUpdate() == 1;
        }
    }

    /**
     * Runs the claim's writes as one transaction: committed when {@code work} returns true, rolled back when it returns
     * false or a write lost a race ({@link #lostRace}), which both mean false. Any other failure is rolled back and
     * thrown.
     */
    private boolean inTransaction(Connection connection, SqlWork<Boolean> work) throws SQLException {
        boolean autoCommit = connection.getAutoCommit();
        if (autoCommit) {
            connection.setAutoCommit(false);
        }
        try {
            boolean done;
            try {
                done = work.run();
            } catch (SQLException e) {
                rollback(connection, e);
                if (lostRace(e)) {
                    return false;
                }
                throw e;
            } catch (RuntimeException | Error e) {
                rollback(connection, e);
                throw e;
            }
            if (done) {
                connection.commit();
            } else {
                connection.rollback();
            }
            return done;
        } finally {
            if (autoCommit) {
                try {
                    connection.setAutoCommit(true);
                } catch (SQLException ignored) {
                    // a broken connection: the pool discards it
                }
            }
        }
    }

    private static void rollback(Connection connection, Throwable failure) {
        try {
            connection.rollback();
        } catch (SQLException e) {
            failure.addSuppressed(e);
        }
    }

    private boolean lostRace(SQLException e) {
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

    /**
     * Renews the lease once: what the background heartbeat does every interval. Returns whether the lease is
     * held afterwards. A failure leaves the lease to run out by itself; a row found in other hands revokes it
     * for good.
     */
    boolean heartbeat() {
        // Locked before the check, so that a caller returns only after any heartbeat already in the database.
        database.lock();
        try {
            return renew();
        } finally {
            database.unlock();
        }
    }

    private boolean renew() {
        if (!lifecycle.isRenewing()) {
            return false;
        }
        MachineIdBlock held = block;
        long now = timeSource.currentTimeMillis();
        // Strictly above every expiry written before, so the row always changes: MySQL run with
        // useAffectedRows counts an UPDATE that writes the same values as no row.
        long expiry = Math.max(now + leaseMillis, lastWrittenExpiry + 1);
        lastWrittenExpiry = expiry;
        // Never below the high water this node took over: after an operator's end the row's expiry is the operator's
        // clock reading, and the former holder, whose clock may run ahead, issues up to its high water.
        Long inherited = notBefore;
        long highWater = inherited == null ? expiry : Math.max(inherited, expiry);
        try (Connection connection = dataSource.getConnection()) {
            int updated = inAutoCommit(connection, () -> writeRows(connection, held, generation, expiry, highWater));
            if (updated == held.size()) {
                // Only now is the new high-water mark committed, so only now may the node issue up to it. If
                // close() began while this renewal was in the database, the lifecycle leaves the revoked lease
                // as it is; the row keeps the renewed lease until close()'s release gets the database (if it
                // still does in time) or the lease ends: that only delays the next holder.
                if (!lifecycle.renewTo(expiry, () -> "Renewed the lease on " + held.describe() + " in table " + table
                        + " again; lease until " + Instant.ofEpochMilli(expiry))) {
                    return false;
                }
                confirmedExpiry = expiry;
                return true;
            }
            // A row of the block is no longer under our generation: the whole block is lost, even if the statement
            // renewed the others (they become free when that lease ends).
            lifecycle.lose(lostRowReason(connection, held));
            return false;
        } catch (SQLException | RuntimeException e) {
            return lifecycle.renewalFailed(now, "Cannot renew the lease on " + held.describe() + " in table " + table
                    + ": " + e.getMessage());
        }
    }

    /** Why a renewal found the block in other hands: the first of its rows that is gone or under another generation. */
    private String lostRowReason(Connection connection, MachineIdBlock held) throws SQLException {
        for (long id = held.first(); id <= held.last(); id++) {
            long machineId = id;
            Row row = inAutoCommit(connection, () -> readRow(connection, machineId));
            String which = held.size() == 1 ? "its row" : "the row of machine ID " + machineId + " of its block " + held;
            if (row == null) {
                return which + " in table " + table + " was deleted";
            }
            // Same owner, moved on, and no longer live: not a restart of ours (that would hold a live lease) but a
            // lease ended from outside.
            if (row.generation != generation && row.owner.equals(owner) && row.leaseExpiry <= timeSource.currentTimeMillis()) {
                return "its lease on " + (held.size() == 1 ? "it" : which) + " in table " + table + " was ended by another"
                        + " process (generation " + row.generation + ", this node held generation " + generation
                        + "): an operator's release (DELETE /vesta/admin/leases) or another process of owner '" + owner + "'";
            }
            if (row.generation != generation) {
                return "table " + table + " shows " + (held.size() == 1 ? "it" : which) + " taken over by owner '" + row.owner
                        + "' (generation " + row.generation + ", this node held generation " + generation
                        + ") after this node could not renew its lease in time";
            }
        }
        return "a row of " + held.describe() + " in table " + table + " changed hands while this node renewed its lease";
    }

    /**
     * Revokes the lease at once (no ID is issued after close() began), stops the heartbeat and releases the
     * row: its lease ends now, so another node may take it at once, but the owner stays, so a restart of this
     * node gets the same ID back. Call after the last ID.
     *
     * <p>Returns within {@link #closeTimeout()} (the query timeout plus one second) whatever the database does.
     * The release waits at most one second for a heartbeat that is in the database; if one is still there (a
     * partition can keep a JDBC call waiting for minutes of TCP retries), or the release itself does not finish
     * in time, the row is left as it is and frees itself when its lease ends, which is logged.
     */
    @Override
    public void close() {
        // The release runs on a thread of its own, so that neither a heartbeat stuck in the driver nor a release
        // stuck the same way (neither getConnection nor a socket read honours a query timeout on a partitioned
        // network) can hold close() past its bound.
        lifecycle.close(closeTimeout(), this::release, () -> "the row becomes free by itself when its lease ends (the"
                + " last expiry this node wrote is " + Instant.ofEpochMilli(lastWrittenExpiry) + ")");
    }

    /** The release of close(): null when done (or nothing was left to release), else what kept it from being done. */
    private String release(long now) throws InterruptedException {
        if (!database.tryLock(CLOSE_WAIT_FOR_DATABASE_MILLIS, TimeUnit.MILLISECONDS)) {
            // Releasing under a heartbeat that hangs in the database would mean waiting for it; the row's lease
            // ends by itself, and nothing is issued meanwhile.
            return "a heartbeat has been in the database for over " + CLOSE_WAIT_FOR_DATABASE_MILLIS + " ms";
        }
        try {
            if (lifecycle.isLost()) {
                return null;
            }
            // If the row was taken over meanwhile, the generation makes this a no-op.
            releaseRows(block, generation, LeaseLifecycle.releaseMark(notBefore, confirmedExpiry, now), now);
            return null;
        } catch (SQLException | RuntimeException e) {
            return e.getMessage();
        } finally {
            database.unlock();
        }
    }

    private int releaseRows(MachineIdBlock held, long heldGeneration, long highWater, long now) throws SQLException {
        try (Connection connection = dataSource.getConnection()) {
            return inAutoCommit(connection, () -> writeRows(connection, held, heldGeneration, now, highWater));
        }
    }

    /**
     * The holder's one write to its rows: renewal and release alike, one statement over the block, conditional on the
     * generation it holds. Returns how many rows it wrote: the whole block unless some were taken over.
     */
    private int writeRows(Connection connection, MachineIdBlock held, long heldGeneration, long leaseExpiry, long highWater)
            throws SQLException {
        try (PreparedStatement update = prepare(connection, renew)) {
            update.setLong(1, leaseExpiry);
            update.setLong(2, highWater);
            update.setLong(3, held.first());
            update.setLong(4, held.last());
            update.setLong(5, heldGeneration);
            return update.executeUpdate();
        }
    }

    /** Creates the table if it does not exist, with the shipped script for this database. */
    public void initializeSchema() {
        try (Connection connection = dataSource.getConnection()) {
            inAutoCommit(connection, () -> {
                createTable(connection);
                return null;
            });
        } catch (SQLException e) {
            throw new IllegalStateException("Cannot create table " + table + ": " + e.getMessage(), e);
        }
    }

    private void createTable(Connection connection) throws SQLException {
        SCRIPT.create(connection, table, queryTimeoutSeconds);
    }

    /**
     * The shipped DDL for a database, by the product name JDBC reports ({@code PostgreSQL}, {@code MySQL},
     * {@code MariaDB}, {@code H2}), with comments removed and {@code vesta_machine} replaced by {@code table}.
     * @throws IllegalArgumentException for a product without a script
     * @throws InvalidSettingException for a table name that is no identifier
     */
    public static String schemaScript(String databaseProductName, String table) {
        return SCRIPT.script(databaseProductName, table);
    }

    private <T> T inAutoCommit(Connection connection, SqlWork<T> work) throws SQLException {
        // Each statement must be its own transaction: a pooled connection left in manual commit would keep one
        // snapshot across our SELECTs (REPEATABLE READ) and never see the rows others claimed.
        boolean autoCommit = connection.getAutoCommit();
        if (!autoCommit) {
            connection.setAutoCommit(true);
        }
        try {
            return work.run();
        } finally {
            if (!autoCommit) {
                try {
                    connection.setAutoCommit(false);
                } catch (SQLException ignored) {
                    // a broken connection: the pool discards it
                }
            }
        }
    }

    private PreparedStatement prepare(Connection connection, String sql) throws SQLException {
        PreparedStatement statement = connection.prepareStatement(sql);
        statement.setQueryTimeout(queryTimeoutSeconds);
        return statement;
    }

    @Override
    public MachineIdLease lease() {
        return lifecycle.lease();
    }

    /** The rows held now; a new grant after this node lost its rows and claimed others by itself. */
    @Override
    public Optional<MachineIdGrant> grant() {
        return lifecycle.grant();
    }

    @Override
    public void onRegain(Runnable listener) {
        lifecycle.onRegain(listener);
    }

    /** The table's leases, for an operator: every row of a range, and ending a dead holder's lease. */
    @Override
    public Optional<MachineIdLeases> leases() {
        return Optional.of(leases);
    }

    @Override
    public OptionalLong notBefore() {
        Long mark = notBefore;
        return mark == null ? OptionalLong.empty() : OptionalLong.of(mark);
    }

    @Override
    public String describe() {
        String from = takenFrom;
        return "db (table " + table + ", owner '" + owner + "'" + (from != null ? ", taken over from '" + from + "'" : "") + ")";
    }

    public String table() {
        return table;
    }

    public String owner() {
        return owner;
    }

    public Duration leaseDuration() {
        return Duration.ofMillis(leaseMillis);
    }

    public Duration heartbeatInterval() {
        return Duration.ofMillis(heartbeatMillis);
    }

    /**
     * The query timeout of every statement: the lease rounded up to whole seconds, since a statement that
     * outlives the lease can no longer keep it.
     */
    public Duration queryTimeout() {
        return Duration.ofSeconds(queryTimeoutSeconds);
    }

    /** The longest {@link #close()} takes: the query timeout plus the one second it may wait for a heartbeat. */
    public Duration closeTimeout() {
        return Duration.ofMillis(closeTimeoutMillis());
    }

    private long closeTimeoutMillis() {
        return queryTimeoutSeconds * 1000L + CLOSE_WAIT_FOR_DATABASE_MILLIS;
    }

    @Override
    public String toString() {
        return "DbMachineIdProvider[" + describe() + ", lease " + leaseMillis + "ms, heartbeat " + heartbeatMillis + "ms]";
    }

    /** The default owner, {@code host:pid} ({@link DefaultOwner#hostAndPid()}): unique among live processes. */
    public static String defaultOwner() {
        return DefaultOwner.hostAndPid();
    }

    @FunctionalInterface
    private interface SqlWork<T> {
        T run() throws SQLException;
    }

    private record Row(long machineId, String owner, long leaseExpiry, long highWater, long generation)
            implements LeaseClaimWalk.Record {
        static Row of(ResultSet rs) throws SQLException {
            return new Row(rs.getLong(1), rs.getString(2), rs.getLong(3), rs.getLong(4), rs.getLong(5));
        }
    }

    private record Claim(long machineId, long generation, long expiry, Long notBefore, String takenFrom) {
    }

    /** Settings of a {@link DbMachineIdProvider}; every setting is checked in {@link #build()}. */
    public static final class Builder {

        private final DataSource dataSource;
        private String table = DEFAULT_TABLE;
        private String owner;
        private Duration lease = DEFAULT_LEASE;
        private Duration heartbeat = DEFAULT_HEARTBEAT;
        private boolean initializeSchema;
        private TimeSource timeSource = TimeSource.system();
        private String settingPrefix = "";

        private Builder(DataSource dataSource) {
            this.dataSource = dataSource;
        }

        /** The table name, {@value #DEFAULT_TABLE} by default; an identifier, optionally {@code schema.table}. */
        public Builder table(String table) {
            this.table = table;
            return this;
        }

        /** Who this node is, stable across its restarts; {@link #defaultOwner()} by default. */
        public Builder owner(String owner) {
            this.owner = owner;
            return this;
        }

        /** How long the row stays this node's after a renewal; 30 s by default. */
        public Builder lease(Duration lease) {
            this.lease = lease;
            return this;
        }

        /** How often the lease is renewed; 5 s by default, at most a third of the lease. */
        public Builder heartbeat(Duration heartbeat) {
            this.heartbeat = heartbeat;
            return this;
        }

        /** Whether {@code acquire} first creates the table if it does not exist; off by default. */
        public Builder initializeSchema(boolean initializeSchema) {
            this.initializeSchema = initializeSchema;
            return this;
        }

        public Builder timeSource(TimeSource timeSource) {
            this.timeSource = timeSource;
            return this;
        }

        /**
         * Put before each setting's kebab-case name in the {@link InvalidSettingException} of {@link #build()}, so it
         * names what the user typed: {@code "vesta.machine-id.db."} gives {@code "vesta.machine-id.db.lease"}.
         */
        public Builder settingPrefix(String settingPrefix) {
            this.settingPrefix = settingPrefix == null ? "" : settingPrefix;
            return this;
        }

        /**
         * The provider, once every setting is checked.
         * @throws InvalidSettingException naming the first setting that cannot be used
         */
        public DbMachineIdProvider build() {
            InvalidSettingException.requireSet(settingPrefix + "data-source", dataSource, "a javax.sql.DataSource");
            InvalidSettingException.requireSet(settingPrefix + "time-source", timeSource, "an io.vesta.time.TimeSource");
            TableScript.checkTableName(settingPrefix + "table", table);
            if (owner == null) {
                owner = defaultOwner();
            }
            LeaseLifecycle.requireOwner(settingPrefix + "owner", owner, MAX_OWNER_LENGTH);
            InvalidSettingException.requireInRange(settingPrefix + "lease", lease, MIN_LEASE, MAX_LEASE);
            LeaseLifecycle.requireRenewalInterval(settingPrefix + "heartbeat", heartbeat, MIN_HEARTBEAT,
                    settingPrefix + "lease", lease);
            return new DbMachineIdProvider(this);
        }
    }
}
