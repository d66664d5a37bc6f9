package io.vesta.segment;

import com.zaxxer.hikari.HikariDataSource;
import io.vesta.test.TestDatabase;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import javax.sql.DataSource;

/** The segment contract on the MariaDB server {@value TestDatabase#MARIADB_URL} names. */
class MariaDbSegmentIdServiceTests extends SegmentIdServiceContract {

    private static HikariDataSource pool;

    @BeforeAll
    static void connect() {
        pool = TestDatabase.MARIADB.pool(8);
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
    String expectedScript() {
        return SegmentSchema.MYSQL;
    }
}
