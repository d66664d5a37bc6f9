package io.vesta.segment;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import javax.sql.DataSource;

/**
 * A real MariaDB named by {@code VESTA_TEST_MARIADB_URL}: each test skips, naming the variable, when it
 * is unset, and fails when it is set and the server is down.
 */
class MariaDbSegmentIdServiceTest extends SegmentIdServiceContract {

    private static HikariDataSource pool;

    @BeforeAll
    static void connect() {
        pool = TestDatabases.fromEnvironment(TestDatabases.MARIADB_URL, "MariaDB");
    }

    @AfterAll
    static void disconnect() {
        if (pool != null) {
            pool.close();
        }
    }

    @Override
    DataSource pool() {
        return pool;
    }

    @Override
    String variable() {
        return TestDatabases.MARIADB_URL;
    }

    @Override
    String expectedScript() {
        return SegmentSchema.MYSQL;
    }
}
