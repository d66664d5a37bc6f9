package io.vesta.test;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TestDatabaseTests {

    @Test
    void eachH2UrlIsANewDatabase() throws SQLException {
        String first = TestDatabase.H2.url();
        String second = TestDatabase.H2.url();
        assertThat(first).isNotEqualTo(second).startsWith("jdbc:h2:mem:vesta_");
        execute(first, "CREATE TABLE only_here (id INT)");
        assertThat(tableExists(first, "only_here")).isTrue();
        assertThat(tableExists(second, "only_here")).isFalse();
    }

    @Test
    void aMariaDbUrlGetsAnotherDatabaseWithItsQueryKept() {
        assertThat(TestDatabase.withDatabase("jdbc:mariadb://127.0.0.1:3306/test?user=root&password=", "s1"))
                .isEqualTo("jdbc:mariadb://127.0.0.1:3306/s1?user=root&password=");
        assertThat(TestDatabase.withDatabase("jdbc:mariadb://127.0.0.1:3306?user=root", "s1"))
                .isEqualTo("jdbc:mariadb://127.0.0.1:3306/s1?user=root");
        assertThat(TestDatabase.withDatabase("jdbc:mysql://db/test", "s1")).isEqualTo("jdbc:mysql://db/s1");
    }

    @Test
    void uniqueNamesDiffer() {
        assertThat(TestDatabase.uniqueName("vesta_t")).matches("vesta_t_[0-9a-f]{10}")
                .isNotEqualTo(TestDatabase.uniqueName("vesta_t"));
    }

    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void aFreshSchemaHoldsTheTestsTablesAndIsGoneAfterClose(TestDatabase database) throws SQLException {
        TestSchema schema = database.createSchema("vesta_kit");
        try (HikariDataSource pool = schema.pool(2)) {
            try (Connection connection = pool.getConnection(); Statement statement = connection.createStatement()) {
                statement.execute("CREATE TABLE orders (id BIGINT PRIMARY KEY)");
                statement.execute("INSERT INTO orders (id) VALUES (1)");
            }
            assertThat(count(pool, schema.name() + ".orders")).as("qualified by the schema's name").isEqualTo(1);
        } finally {
            schema.close();
        }
        if (database != TestDatabase.H2) {
            assertThat(tableExists(database.url(), schema.name() + ".orders")).as("dropped").isFalse();
        }
    }

    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void aKilledSessionBreaksItsConnection(TestDatabase database) throws SQLException {
        String url = database.url();
        try (Connection victim = DriverManager.getConnection(url)) {
            long session = database.sessionId(victim);
            database.killSession(url, session);
            assertThatThrownBy(() -> {
                try (Statement statement = victim.createStatement()) {
                    statement.execute("SELECT 1");
                }
            }).isInstanceOf(SQLException.class);
        }
    }

    @Test
    void aPoolOfNoConnectionIsRefusedNamingTheSetting() {
        assertThatThrownBy(() -> TestDatabase.H2.pool(0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("maxSize must be at least 1, was 0");
    }

    private static long count(DataSource pool, String table) throws SQLException {
        try (Connection connection = pool.getConnection(); Statement statement = connection.createStatement();
                ResultSet rs = statement.executeQuery("SELECT COUNT(*) FROM " + table)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    static void execute(String url, String sql) throws SQLException {
        try (Connection connection = DriverManager.getConnection(url);
                Statement statement = connection.createStatement()) {
            statement.execute(sql);
        }
    }

    private static boolean tableExists(String url, String table) throws SQLException {
        try (Connection connection = DriverManager.getConnection(url)) {
            try (Statement statement = connection.createStatement()) {
                statement.executeQuery("SELECT COUNT(*) FROM " + table).close();
                return true;
            } catch (SQLException missing) {
                return false;
            }
        }
    }
}
