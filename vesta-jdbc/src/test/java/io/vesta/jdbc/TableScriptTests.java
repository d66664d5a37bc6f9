package io.vesta.jdbc;

import com.zaxxer.hikari.HikariDataSource;
import io.vesta.InvalidSettingException;
import io.vesta.test.TestDatabase;
import io.vesta.test.TestSchema;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The shipped DDL of Vesta's tables: which script a database gets, how the table name is checked and put in. */
class TableScriptTests {

    private final TableScript segments = new TableScript("io/vesta/segment", "vesta_segment");

    @ParameterizedTest
    @ValueSource(strings = {"vesta_segment", "_orders", "app.vesta_segment", "A1_b2"})
    void unquotedIdentifiersAndSchemaQualifiedOnesAreAccepted(String table) {
        assertThat(TableScript.checkTableName("vesta.segment.table", table)).isEqualTo(table);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "1orders", "orders;DROP TABLE x", "\"orders\"", "a.b.c", "orders-2", "app. orders"})
    void anythingElseIsRefusedNamingTheSettingAndTheRule(String table) {
        assertThatThrownBy(() -> TableScript.checkTableName("vesta.segment.table", table))
                .isInstanceOfSatisfying(InvalidSettingException.class, refused -> {
                    assertThat(refused.setting()).isEqualTo("vesta.segment.table");
                    assertThat(refused.value()).isEqualTo(table);
                })
                .hasMessageContaining("unquoted SQL identifier");
    }

    @Test
    void aMissingNameIsRequiredAndALongOneRefused() {
        assertThatThrownBy(() -> TableScript.checkTableName("vesta.machine-id.db.table", null))
                .isInstanceOf(InvalidSettingException.class)
                .hasMessageContaining("vesta.machine-id.db.table")
                .hasMessageContaining("is required");
        assertThat(TableScript.checkTableName("t", "a".repeat(63))).hasSize(63);
        assertThatThrownBy(() -> TableScript.checkTableName("t", "a".repeat(64)))
                .isInstanceOf(InvalidSettingException.class);
    }

    @Test
    void theScriptIsChosenByTheProductNameJdbcReports() {
        assertThat(segments.resource("PostgreSQL")).isEqualTo("io/vesta/segment/schema-postgresql.sql");
        assertThat(segments.resource("MySQL")).isEqualTo("io/vesta/segment/schema-mysql.sql");
        assertThat(segments.resource("MariaDB")).isEqualTo("io/vesta/segment/schema-mysql.sql");
        assertThat(segments.resource("H2")).isEqualTo("io/vesta/segment/schema-h2.sql");
    }

    @Test
    void aDatabaseWithoutAScriptIsRefusedPointingAtTheScripts() {
        assertThatThrownBy(() -> segments.resource("Oracle"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'Oracle'")
                .hasMessageContaining("io/vesta/segment/schema-*.sql");
    }

    @Test
    void statementsCarryNoCommentsOrSemicolonsAndNameTheConfiguredTable() {
        List<String> statements = segments.statements("PostgreSQL", "app.orders_segment");

        assertThat(statements).isNotEmpty().allSatisfy(statement -> assertThat(statement)
                .doesNotContain("--").doesNotContain(";").doesNotContain("vesta_segment").isEqualTo(statement.strip()));
        assertThat(statements.get(0)).startsWith("CREATE TABLE IF NOT EXISTS app.orders_segment");
        assertThat(segments.script("PostgreSQL", "app.orders_segment"))
                .isEqualTo(String.join(";\n\n", statements) + ";");
    }

    @Test
    void theLeaseTableIsReadUnderTheSameRule() {
        TableScript leases = new TableScript("io/vesta/machine/db", "vesta_machine");

        for (String product : List.of("PostgreSQL", "MariaDB", "H2")) {
            List<String> statements = leases.statements(product, "ids.machine_leases");
            assertThat(statements.get(0)).startsWith("CREATE TABLE IF NOT EXISTS ids.machine_leases");
            assertThat(String.join("\n", statements)).doesNotContain("vesta_machine");
        }
    }

    @Test
    void aBadTableNameIsRefusedBeforeAnyScriptIsRead() {
        assertThatThrownBy(() -> segments.statements("Oracle", "x;y"))
                .isInstanceOf(InvalidSettingException.class);
    }

    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void createMakesTheTableOnceAndAgainIsHarmless(TestDatabase database) throws Exception {
        try (TestSchema schema = database.createSchema("vesta_script");
             HikariDataSource pool = schema.pool(2);
             Connection connection = pool.getConnection()) {
            String resource = segments.create(connection, "orders_segment", 5);
            segments.create(connection, "orders_segment", 5);

            assertThat(resource).isEqualTo(segments.resource(connection.getMetaData().getDatabaseProductName()));
            assertThat(columns(connection, "orders_segment"))
                    .containsExactlyInAnyOrder("biz_tag", "max_id", "step", "description", "update_time");
        }
    }

    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void nodesThatCreateTheTableTogetherAllSucceed(TestDatabase database) throws Exception {
        int nodes = 6;
        try (TestSchema schema = database.createSchema("vesta_script_race");
             HikariDataSource pool = schema.pool(nodes)) {
            // A lost race is a matter of timing: five tables raced for make one likely on PostgreSQL.
            ExecutorService threads = Executors.newFixedThreadPool(nodes);
            try {
                for (int round = 0; round < 5; round++) {
                    String table = "raced_segment_" + round;
                    CountDownLatch start = new CountDownLatch(1);
                    List<Future<String>> creates = new ArrayList<>();
                    for (int i = 0; i < nodes; i++) {
                        creates.add(threads.submit(() -> {
                            try (Connection connection = pool.getConnection()) {
                                start.await();
                                return segments.create(connection, table, 5);
                            }
                        }));
                    }
                    start.countDown();
                    for (Future<String> create : creates) {
                        assertThat(create.get(60, TimeUnit.SECONDS)).endsWith(".sql");
                    }
                    try (Connection connection = pool.getConnection()) {
                        assertThat(columns(connection, table)).contains("biz_tag", "max_id");
                    }
                }
            } finally {
                threads.shutdownNow();
            }
        }
    }

    private static List<String> columns(Connection connection, String table) throws SQLException {
        List<String> columns = new ArrayList<>();
        try (var statement = connection.createStatement();
             ResultSet rows = statement.executeQuery("SELECT * FROM " + table + " WHERE 1 = 0")) {
            for (int i = 1; i <= rows.getMetaData().getColumnCount(); i++) {
                columns.add(rows.getMetaData().getColumnName(i).toLowerCase(Locale.ROOT));
            }
        }
        return columns;
    }
}
