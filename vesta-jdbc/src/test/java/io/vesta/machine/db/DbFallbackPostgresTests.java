package io.vesta.machine.db;

import io.vesta.machine.MachineIdRange;
import io.vesta.test.FaultyDataSource;
import io.vesta.test.TestDatabase;
import io.vesta.test.lease.FallbackScenario;
import io.vesta.test.lease.TcpRelay;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The fallback machine ID on the {@code db} lease table in the PostgreSQL server {@value TestDatabase#POSTGRES_URL}
 * names, reached through a {@link TcpRelay} the test cuts ({@link FallbackScenario}): the database down at start-up,
 * and lost past the lease of a node that held one; no ID twice. A table of its own; a lease of 3 s renewed every second.
 */
class DbFallbackPostgresTests {

    @TempDir
    Path marks;
    private String url;
    private String table;
    private TcpRelay partition;
    private FaultyDataSource dataSource;
    private FallbackScenario scenario;

    @BeforeEach
    void createTable() throws Exception {
        url = TestDatabase.POSTGRESQL.url();
        table = TestDatabase.uniqueName("vesta_machine_fallback");
        try (FaultyDataSource direct = FaultyDataSource.pooled(url, 1)) {
            DbMachineIdProvider.builder(direct).table(table).owner("schema").build().initializeSchema();
        }
        URI server = URI.create(url.substring("jdbc:".length()));
        partition = new TcpRelay(server.getHost(), server.getPort());
        dataSource = FaultyDataSource.pooled(url.replace(server.getHost() + ":" + server.getPort(),
                "127.0.0.1:" + partition.port()), 2);
        scenario = new FallbackScenario(FallbackScenario.Store.behind(partition, () -> DbMachineIdProvider
                .builder(dataSource).table(table).owner("node-a")
                .lease(Duration.ofSeconds(3)).heartbeat(Duration.ofSeconds(1)).build()),
                new MachineIdRange(0, 1015), 1016, marks);
    }

    @AfterEach
    void dropTable() throws Exception {
        if (scenario != null) {
            scenario.close();
        }
        if (dataSource != null) {
            dataSource.close();
        }
        if (partition != null) {
            partition.close();
        }
        if (table != null) {
            try (Connection connection = DriverManager.getConnection(url); Statement statement = connection.createStatement()) {
                statement.execute("DROP TABLE IF EXISTS " + table);
            }
        }
    }

    @Test
    void aNodeThatCannotReachTheDatabaseAtStartUpIssuesUnderItsFallbackThenUnderALease() throws Exception {
        scenario.storeDownAtStartUp();
        assertThat(owner(0)).as("the row of machine ID 0").isEqualTo("node-a");
    }

    @Test
    void aNodeThatLosesTheDatabasePastItsLeaseIssuesUnderItsFallbackThenUnderALeaseAgain() throws Exception {
        scenario.storeLostMidRun();
        assertThat(owner(0)).as("the row of machine ID 0").isEqualTo("node-a");
    }

    private String owner(long machineId) throws Exception {
        try (Connection connection = DriverManager.getConnection(url);
                PreparedStatement select = connection.prepareStatement("SELECT owner FROM " + table + " WHERE machine_id = ?")) {
            select.setLong(1, machineId);
            try (ResultSet rs = select.executeQuery()) {
                return rs.next() ? rs.getString(1) : null;
            }
        }
    }
}
