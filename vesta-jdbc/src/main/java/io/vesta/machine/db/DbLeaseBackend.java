package io.vesta.machine.db;

import io.vesta.jdbc.Jdbc;
import io.vesta.machine.LeaseBackend;
import io.vesta.machine.LeaseClaim;
import io.vesta.machine.LeaseClaimWalk;
import io.vesta.machine.LeaseSettings;
import io.vesta.machine.LeasedMachineIdProvider;
import io.vesta.machine.MachineIdBlock;
import io.vesta.machine.MachineIdLeases;
import io.vesta.machine.MachineIdRange;
import io.vesta.machine.MachineIdUnavailableException;
import io.vesta.machine.RecordLeases;
import io.vesta.machine.db.LeaseTable.Row;
import io.vesta.time.TimeSource;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.NavigableMap;
import java.util.function.LongPredicate;

/**
 * The lease table's part of a {@link DbMachineIdProvider}: claims, renewals and releases of rows, fenced by the
 * generation a block's rows are held under.
 *
 * <p>Why two nodes never issue the same ID: the holder issues only while its local lease is held, and that lease is
 * never extended past a {@code high_water} already committed to the row. Whoever takes the row over starts after the
 * {@code high_water} that was committed at the moment it took the row: a takeover only succeeds if the row still
 * carries exactly the generation, {@code lease_expiry} and {@code high_water} the taker read, so a renewal that commits
 * between the taker's read and its write makes the takeover match no row, and a takeover that commits first moves the
 * generation on, so the renewal matches no row. Both bounds are the holder's own clock readings, so this holds however
 * far apart the two nodes' clocks are.
 *
 * <p>Why acquiring is race-free on every database: a row changes hands only through
 * <ul>
 * <li>INSERT of a new row: the PRIMARY KEY lets exactly one INSERT per machine_id commit; every other one fails with a
 *     unique violation (SQLState class 23), which we read as "lost the race";</li>
 * <li>UPDATE ... SET generation = g + 1 ... WHERE machine_id = ? AND generation = g AND lease_expiry = e AND
 *     high_water = h, where g, e and h are what the acquirer read. A single UPDATE locks the row and evaluates its
 *     WHERE against the latest committed version (PostgreSQL's READ COMMITTED re-checks the updated row, InnoDB's
 *     UPDATE is a locking read of the newest version whatever the isolation level, H2 locks the row and re-reads it),
 *     so of all acquirers that read the row exactly one moves it to g + 1 and the others update no row. Under
 *     REPEATABLE READ or SERIALIZABLE PostgreSQL and H2 report a serialization failure (class 40 or H2's 90131)
 *     instead; that is a lost race too.</li>
 * </ul>
 * The generation alone would fence acquirers from each other, but not from the holder: its heartbeat renews under the
 * same generation, so a takeover guarded by the generation only could commit after a renewal it never saw and start
 * after a high water the holder had already passed. Hence the takeover also requires the lease_expiry and high_water it
 * read. The holder writes the row under its generation only
 * <ul>
 * <li>in a heartbeat, whose expiry (= high water) is strictly above every expiry it ever wrote, so a renewal that
 *     commits after the taker's read takes the values the taker read out of the row;</li>
 * <li>in the release of close(), after its lease was revoked, with a high water at or above every ID it issued and
 *     every mark it inherited: should that happen to bring back values a taker read, the takeover is right to match,
 *     since they then bound everything the holder issued.</li>
 * </ul>
 * So whenever the takeover matches, the row is still takeable for the reason the taker saw and its high_water bounds
 * every ID the holder issued or may still issue (the holder never issues past a committed high water); and once the
 * takeover commits, the generation has moved on and no renewal or release of the holder can match the row again. The
 * generation only grows, so a write conditional on a generation that was ever replaced can never succeed again (no
 * ABA). Every statement runs in auto-commit, so the SELECT that picks candidates never reads a stale snapshot. No
 * SELECT ... FOR UPDATE: it cannot lock a row that does not exist yet, and its gap-locking differs between the three
 * databases.
 */
final class DbLeaseBackend implements LeaseBackend<Long> {

    private static final System.Logger LOG = System.getLogger(DbMachineIdProvider.class.getName());

    private final DataSource dataSource;
    private final LeaseTable table;
    private final String owner;
    private final long leaseMillis;
    private final boolean initializeSchema;
    private final TimeSource timeSource;

    DbLeaseBackend(DataSource dataSource, String table, boolean initializeSchema, LeaseSettings settings) {
        this.dataSource = dataSource;
        this.leaseMillis = settings.lease().toMillis();
        // The lease rounded up to whole seconds: a statement that outlives the lease can no longer keep it.
        this.table = new LeaseTable(table, (int) Math.max(1, (leaseMillis + 999) / 1000));
        this.owner = settings.owner();
        this.initializeSchema = initializeSchema;
        this.timeSource = settings.timeSource();
    }

    LeaseTable table() {
        return table;
    }

    @Override
    public String store() {
        return "table " + table.name();
    }

    @Override
    public String scope() {
        return table.name();
    }

    @Override
    public String describe(LeaseClaim<Long> held) {
        return LeaseClaim.describe("db", store(), owner, held);
    }

    /** Creates the table if it does not exist, with the shipped script for this database. */
    void createTable() {
        try {
            autoCommit(c -> {
                table.create(c);
                return null;
            });
        } catch (SQLException e) {
            throw new IllegalStateException("Cannot create table " + table.name() + ": " + e.getMessage(), e);
        }
    }

    /** The block's rows, in one transaction, whole or not at all; the table first if the builder said so. */
    @Override
    public LeaseClaim<Long> claim(MachineIdRange range, int blockSize, boolean startUp) throws SQLException {
        return autoCommit(c -> {
            if (startUp && initializeSchema) {
                table.create(c);
            }
            return LeaseClaimWalk.claim(range, blockSize, owner, startUp, timeSource, walk(c, range, blockSize));
        });
    }

    /** The claim walk over the table: each read in auto-commit, each take in a transaction. */
    private LeaseClaimWalk.Store<NavigableMap<Long, Row>, Row, LeaseClaim<Long>, SQLException> walk(
            Connection connection, MachineIdRange range, int blockSize) {
        return new LeaseClaimWalk.Store<>() {
            @Override
            public NavigableMap<Long, Row> read() throws SQLException {
                return table.rows(connection, range.min(), range.max());
            }

            @Override
            public NavigableMap<Long, Row> records(NavigableMap<Long, Row> snapshot) {
                return snapshot;
            }

            @Override
            public LeaseClaimWalk.Attempt<LeaseClaim<Long>> take(NavigableMap<Long, Row> snapshot, long first,
                    List<Row> block, long now) throws SQLException {
                LeaseClaim<Long> claim = takeBlock(connection, first, block, now);
                return claim != null ? LeaseClaimWalk.Attempt.taken(claim) : LeaseClaimWalk.Attempt.lost();
            }

            @Override
            public RuntimeException rangeFull(MachineIdRange range, int blockSize, Collection<Row> rows, long now) {
                return LeaseClaimWalk.rangeFull(store(), "rows", range, blockSize, rows, now);
            }

            @Override
            public RuntimeException gaveUp(int rounds) {
                return LeaseClaimWalk.gaveUp(store(), "row", owner, range, blockSize, rounds);
            }
        };
    }

    /**
     * Takes every machine ID of a block in one transaction, or none: a machine ID without a row is inserted, a row is
     * taken over only if it is still exactly as read, so that its {@code high_water} is the high water committed when
     * it changes hands. Every row of the block ends up under one generation, above each row's before, so that the
     * holder's renewal and release are one statement conditional on it. Null when a write lost a race (nothing is
     * then left changed).
     */
    private LeaseClaim<Long> takeBlock(Connection connection, long first, List<Row> block, long now)
            throws SQLException {
        long expiry = now + leaseMillis;
        LeaseClaim<Long> claim = RecordLeases.claim(first, block, owner, expiry);
        return Jdbc.transactionUnlessLostRace(connection, c -> {
            for (int offset = 0; offset < block.size(); offset++) {
                Row row = block.get(offset);
                if (row == null) {
                    table.insert(c, first + offset, owner, expiry, claim.fence());
                } else if (!table.takeOver(c, row, owner, expiry, claim.fence())) {
                    return null;
                }
            }
            return claim;
        });
    }

    /**
     * One UPDATE over the block under the generation held. The provider writes an expiry strictly above every one
     * written before, so the rows always change: MySQL run with useAffectedRows counts an UPDATE that writes the same
     * values as no row. A row of the block no longer under the generation loses the whole block, even if the statement
     * renewed the others (they become free when that lease ends).
     */
    @Override
    public Renewal<Long> renew(LeaseClaim<Long> held, long expiry, long highWater) throws SQLException {
        return autoCommit(c -> table.write(c, held.block(), held.fence(), expiry, highWater) == held.block().size()
                ? Renewal.renewed(held.fence()) : Renewal.lost(lostRowReason(c, held)));
    }

    /** Why a renewal found the block in other hands: the first of its rows that is gone or under another generation. */
    private String lostRowReason(Connection connection, LeaseClaim<Long> held) throws SQLException {
        MachineIdBlock block = held.block();
        long generation = held.fence();
        for (long id = block.first(); id <= block.last(); id++) {
            Row row = table.row(connection, id);
            String which = block.size() == 1 ? "its row" : "the row of machine ID " + id + " of its block " + block;
            if (row == null) {
                return which + " in " + store() + " was deleted";
            }
            String lost = RecordLeases.lostTo(store(), block.size() == 1 ? "it" : which, row, generation, owner,
                    timeSource.currentTimeMillis());
            if (lost != null) {
                return lost;
            }
        }
        return "a row of " + block.describe() + " in " + store() + " changed hands while this node renewed its lease";
    }

    /**
     * The renewal's statement with the release's expiry and mark: if the rows were taken over meanwhile, the generation
     * makes it a no-op.
     */
    @Override
    public boolean release(LeaseClaim<Long> held, long now, long highWater) throws SQLException {
        return autoCommit(c -> table.write(c, held.block(), held.fence(), now, highWater)) > 0;
    }

    /**
     * The table's rows for an operator. Ending a lease is one statement, {@code UPDATE ... SET lease_expiry = now,
     * generation = generation + 1 WHERE owner = ? AND generation = ? AND lease_expiry > now}: every row its holder
     * leased together (a block shares one generation) at once. It leaves {@code high_water} as committed, and the
     * holder never issues past a committed high water; its next renewal, conditional on the old generation, matches
     * fewer rows and stops it for good; whoever takes a row next starts after that high water. A renewal that commits
     * first only raises the high water the statement keeps, and a takeover cannot commit in between, because the row
     * is live.
     */
    @Override
    public MachineIdLeases leases(LongPredicate heldHere) {
        return new RecordLeases<>(new RecordLeases.Store<Row>() {
            @Override
            public NavigableMap<Long, Row> read(long min, long max) throws SQLException {
                return autoCommit(c -> table.rows(c, min, max));
            }

            @Override
            public long end(Row row, long now) throws SQLException {
                return autoCommit(c -> table.end(c, row.owner(), row.generation(), now));
            }
        }, store(), store(), "rows", timeSource, heldHere, LOG);
    }

    /** {@code work} on a connection of its own, in auto-commit. */
    private <T> T autoCommit(Jdbc.Work<T> work) throws SQLException {
        try (Connection connection = dataSource.getConnection()) {
            return Jdbc.autoCommit(connection, work);
        }
    }

    /** The query timeout and the one second close() may wait for a heartbeat that is in the database. */
    @Override
    public Duration closeTimeout() {
        return Duration.ofSeconds(table.queryTimeoutSeconds()).plus(LeasedMachineIdProvider.CLOSE_WAIT_FOR_STORE);
    }

    @Override
    public String unreleased(LeaseClaim<Long> held, long lastWrittenExpiry) {
        return (held.block().size() == 1 ? "the row becomes free by itself when its lease ends"
                : "the rows become free by themselves when their lease ends") + " (the last expiry this node wrote is "
                + Instant.ofEpochMilli(lastWrittenExpiry) + ")";
    }
}
