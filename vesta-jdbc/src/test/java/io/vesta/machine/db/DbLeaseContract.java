package io.vesta.machine.db;

import io.vesta.machine.MachineIdProvider;
import io.vesta.test.FaultyDataSource;
import io.vesta.test.lease.MachineIdLeaseContract;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The lease contract on a database: every test in a table of its own, every node through one FaultyDataSource that can
 * stall and lose replies. A database keeps what it committed, so it cannot restart empty or roll back.
 */
abstract class DbLeaseContract extends MachineIdLeaseContract {

    private static final java.util.logging.Logger QUIET = java.util.logging.Logger.getLogger("io.vesta.machine");

    static {
        QUIET.setLevel(java.util.logging.Level.SEVERE);
    }

    private String table;
    private FaultyDataSource dataSource;

    /** The database's JDBC URL; skips (naming the variable) when it is not configured. */
    abstract String url();

    @Override
    protected void openStore() {
        table = "vesta_contract_" + Long.toHexString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE);
        dataSource = FaultyDataSource.pooled(url(), 40);
        DbMachineIdProvider.builder(dataSource).table(table).owner("schema").build().initializeSchema();
    }

    @Override
    protected void closeStore() throws Exception {
        if (dataSource != null) {
            dataSource.close();
        }
        try (Connection connection = DriverManager.getConnection(url()); Statement statement = connection.createStatement()) {
            statement.execute("DROP TABLE IF EXISTS " + table);
        }
    }

    @Override
    protected MachineIdProvider provider(Node node) {
        return DbMachineIdProvider.builder(dataSource).table(table).owner(node.owner()).lease(node.lease())
                .heartbeat(node.renewal()).timeSource(node.timeSource()).build();
    }

    /** The nodes' clocks must be well within a lease of each other (docs/machine-ids.md): half of one. */
    @Override
    protected Duration documentedClockBound() {
        return LEASE.dividedBy(2);
    }

    @Override
    protected AutoCloseable stall() {
        // Every connection and statement hangs, ignoring interrupts, as a JDBC call on a partitioned network does.
        FaultyDataSource.Stall connections = dataSource.stall(FaultyDataSource.StallPoint.CONNECTION);
        FaultyDataSource.Stall statements = dataSource.stall(FaultyDataSource.StallPoint.STATEMENT);
        return () -> {
            connections.release();
            statements.release();
        };
    }

    @Override
    protected AutoCloseable loseReplies() {
        // Every write commits, then its reply is lost, as when the link breaks after the server committed.
        FaultyDataSource.Fault lost = dataSource.loseCommitReply(sql -> !sql.startsWith("SELECT"));
        return lost::remove;
    }

    @Override
    protected void restartEmpty() {
        notSupported("restart empty", "a database loses no committed write");
    }

    @Override
    protected Snapshot snapshot() {
        return notSupported("roll back to a snapshot", "a database loses no committed write; restoring a backup of the"
                + " lease table under running nodes is an operator's act outside the documented loss model");
    }
}
