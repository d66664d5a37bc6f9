package io.vesta.test;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLTransientConnectionException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Each fault on an in-memory H2 database. */
class FaultyDataSourceTests {

    private final String url = TestDatabase.H2.url();
    private final List<FaultyDataSource> sources = new ArrayList<>();
    private final ExecutorService threads = Executors.newFixedThreadPool(2);

    @BeforeEach
    void createTable() throws SQLException {
        TestDatabaseTests.execute(url, "CREATE TABLE lease (id INT PRIMARY KEY, owner VARCHAR(20))");
        TestDatabaseTests.execute(url, "INSERT INTO lease VALUES (1, 'a')");
    }

    @AfterEach
    void close() throws SQLException {
        threads.shutdownNow();
        for (FaultyDataSource source : sources) {
            source.close();
        }
        TestDatabaseTests.execute(url, "SHUTDOWN");
    }

    private FaultyDataSource pooled(int maxOpen) {
        FaultyDataSource source = FaultyDataSource.pooled(url, maxOpen);
        sources.add(source);
        return source;
    }

    private static String owner(FaultyDataSource source) throws SQLException {
        try (Connection connection = source.getConnection(); Statement statement = connection.createStatement();
                ResultSet rs = statement.executeQuery("SELECT owner FROM lease WHERE id = 1")) {
            rs.next();
            return rs.getString(1);
        }
    }

    private static int update(Connection connection, String owner) throws SQLException {
        try (PreparedStatement update = connection.prepareStatement("UPDATE lease SET owner = ? WHERE id = 1")) {
            update.setString(1, owner);
            return update.executeUpdate();
        }
    }

    @Test
    void downRefusesConnectionsUntilUpAgain() throws SQLException {
        FaultyDataSource source = pooled(2);
        source.down(true);
        assertThatThrownBy(source::getConnection).isInstanceOf(SQLTransientConnectionException.class)
                .hasMessage(FaultyDataSource.DOWN_MESSAGE);
        source.down(false);
        assertThat(owner(source)).isEqualTo("a");
    }

    @Test
    void thePoolReusesItsConnectionsAndOpensNoMoreThanAllowed() throws Exception {
        FaultyDataSource source = pooled(1);
        for (int i = 0; i < 5; i++) {
            owner(source);
        }
        assertThat(source.opened()).isEqualTo(1);
        Connection held = source.getConnection();
        Future<String> waiting = threads.submit(() -> owner(source));
        Thread.sleep(100);
        assertThat(waiting).as("the second caller waits for the one connection").isNotDone();
        held.close();
        assertThat(waiting.get(5, TimeUnit.SECONDS)).isEqualTo("a");
    }

    @Test
    void aStalledStatementHangsThroughInterruptsUntilReleased() throws Exception {
        FaultyDataSource source = pooled(2);
        FaultyDataSource.Stall stall = source.stallStatements(sql -> sql.startsWith("UPDATE"));
        assertThat(owner(source)).as("a SELECT is not stalled").isEqualTo("a");
        Future<Integer> updating = threads.submit(() -> {
            try (Connection connection = source.getConnection()) {
                return update(connection, "b");
            }
        });
        assertThat(stall.awaitBlocked(Duration.ofSeconds(5))).isTrue();
        assertThat(stall.blocked()).isEqualTo(1);
        assertThat(stall.lastBlockedThread()).startsWith("pool-");
        updating.cancel(true);
        Thread.sleep(100);
        assertThat(stall.blocked()).as("still hanging after an interrupt").isEqualTo(1);
        stall.release();
        awaitTrue(() -> stall.blocked() == 0);
        // Leaving the stall comes before the statement runs and commits: wait for its effect, not for the exit.
        awaitTrue(() -> {
            try {
                return "b".equals(owner(source));
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
        });
        assertThat(owner(source)).as("the update ran once released").isEqualTo("b");
    }

    @Test
    void aStalledGetConnectionHangsUntilReleased() throws Exception {
        FaultyDataSource source = pooled(2);
        FaultyDataSource.Stall stall = source.stall(FaultyDataSource.StallPoint.CONNECTION);
        CompletableFuture<String> reading = CompletableFuture.supplyAsync(() -> {
            try {
                return owner(source);
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
        }, threads);
        assertThat(stall.awaitBlocked(Duration.ofSeconds(5))).isTrue();
        Thread.sleep(50);
        assertThat(reading).isNotDone();
        stall.release();
        assertThat(reading.get(5, TimeUnit.SECONDS)).isEqualTo("a");
    }

    @Test
    void matchingStatementsFailBeforeReachingTheDatabase() throws SQLException {
        FaultyDataSource source = pooled(2);
        FaultyDataSource.Fault fault = source.failStatements(sql -> sql.startsWith("UPDATE"));
        try (Connection connection = source.getConnection()) {
            assertThatThrownBy(() -> update(connection, "b")).isInstanceOf(SQLTransientConnectionException.class)
                    .hasMessageContaining("UPDATE lease SET owner = ? WHERE id = 1");
        }
        assertThat(owner(source)).isEqualTo("a");
        assertThat(fault.fired()).isEqualTo(1);
        fault.remove();
        try (Connection connection = source.getConnection()) {
            assertThat(update(connection, "b")).isEqualTo(1);
        }
    }

    @Test
    void aHookRunsBetweenASelectAndTheUpdateOfOneTransaction() throws SQLException {
        FaultyDataSource source = pooled(2);
        FaultyDataSource other = pooled(1);
        source.beforeStatement(sql -> sql.startsWith("UPDATE"), sql -> {
            try (Connection connection = other.getConnection()) {
                update(connection, "intruder");
            }
        }).times(1);
        try (Connection connection = source.getConnection()) {
            connection.setAutoCommit(false);
            try (Statement statement = connection.createStatement();
                    ResultSet rs = statement.executeQuery("SELECT owner FROM lease WHERE id = 1")) {
                rs.next();
                assertThat(rs.getString(1)).isEqualTo("a");
            }
            // The other node's write committed in between: this transaction read 'a' and writes over it.
            assertThat(update(connection, "mine")).isEqualTo(1);
            connection.commit();
        }
        assertThat(owner(source)).isEqualTo("mine");
        assertThat(source.count(sql -> sql.startsWith("UPDATE"))).isEqualTo(1);
        assertThat(other.count(sql -> sql.startsWith("UPDATE"))).as("the hook's own update, once").isEqualTo(1);
    }

    @Test
    void aLostReplyInAutoCommitLeavesTheWriteCommittedAndTheCallFailed() throws SQLException {
        FaultyDataSource source = pooled(1);
        source.loseCommitReply(sql -> sql.startsWith("UPDATE")).times(1);
        try (Connection connection = source.getConnection()) {
            assertThatThrownBy(() -> update(connection, "b")).isInstanceOf(SQLNonTransientConnectionException.class)
                    .hasMessage(FaultyDataSource.LOST_REPLY_MESSAGE);
            assertThat(connection.isClosed()).as("the connection is gone").isTrue();
        }
        assertThat(owner(source)).isEqualTo("b");
        try (Connection connection = source.getConnection()) {
            assertThat(update(connection, "c")).as("once only").isEqualTo(1);
        }
    }

    @Test
    void aLostReplyInATransactionFailsTheCommitAfterItCommitted() throws SQLException {
        FaultyDataSource source = pooled(2);
        source.loseCommitReply(sql -> sql.startsWith("UPDATE"));
        try (Connection connection = source.getConnection()) {
            connection.setAutoCommit(false);
            assertThat(update(connection, "b")).as("the statement itself answers").isEqualTo(1);
            assertThatThrownBy(connection::commit).isInstanceOf(SQLNonTransientConnectionException.class);
        }
        assertThat(owner(source)).isEqualTo("b");
        try (Connection connection = source.getConnection()) {
            connection.setAutoCommit(false);
            update(connection, "c");
            connection.rollback();
            connection.commit();
            connection.setAutoCommit(true);
        }
        assertThat(owner(source)).as("a rolled-back write loses no reply").isEqualTo("b");
    }

    @Test
    void everyExecutionIsRecordedWithItsQueryTimeout() throws SQLException {
        FaultyDataSource source = pooled(1);
        try (Connection connection = source.getConnection()) {
            try (Statement batch = connection.createStatement()) {
                batch.addBatch("UPDATE lease SET owner = 'x' WHERE id = 1");
                batch.addBatch("UPDATE lease SET owner = 'y' WHERE id = 1");
                batch.executeBatch();
            }
            try (PreparedStatement select = connection.prepareStatement("  SELECT owner FROM lease WHERE id = ?  ")) {
                select.setQueryTimeout(3);
                select.setInt(1, 1);
                select.executeQuery().close();
            }
        }
        assertThat(source.executed()).containsExactly(
                new FaultyDataSource.Executed("UPDATE lease SET owner = 'x' WHERE id = 1;\n"
                        + "UPDATE lease SET owner = 'y' WHERE id = 1", 0),
                new FaultyDataSource.Executed("SELECT owner FROM lease WHERE id = ?", 3));
        assertThat(source.count(sql -> sql.startsWith("SELECT"))).isEqualTo(1);
    }

    @Test
    void aSingleSourceReconnectsAfterItsSessionIsKilledOnceUpAgain() throws Exception {
        FaultyDataSource source = FaultyDataSource.single(url);
        sources.add(source);
        assertThat(owner(source)).isEqualTo("a");
        long session = TestDatabase.H2.sessionId(source.physical());
        source.down(true);
        TestDatabase.H2.killSession(url, session);
        // The driver's own error on the broken connection, or the refusal to reopen it (H2 reports it closed).
        assertThatThrownBy(() -> owner(source)).isInstanceOf(SQLException.class);
        source.down(false);
        assertThat(owner(source)).isEqualTo("a");
        assertThat(source.opened()).isEqualTo(2);
    }

    @Test
    void overAnotherSourceLeavesItOpen() throws SQLException {
        try (var pool = TestDatabase.H2.pool(url, 2)) {
            FaultyDataSource source = FaultyDataSource.over(pool);
            sources.add(source);
            source.down(true);
            assertThatThrownBy(source::getConnection).hasMessage(FaultyDataSource.DOWN_MESSAGE);
            source.down(false);
            assertThat(owner(source)).isEqualTo("a");
            source.close();
            assertThat(pool.isClosed()).isFalse();
            assertThat(source.opened()).isEqualTo(1);
        }
    }

    private static void awaitTrue(java.util.function.BooleanSupplier condition) throws InterruptedException {
        Await.until("the condition", java.time.Duration.ofSeconds(5), condition);
    }
}
