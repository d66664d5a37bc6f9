package io.vesta.segment;

import com.zaxxer.hikari.HikariDataSource;
import io.vesta.test.TestDatabase;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import javax.sql.DataSource;

/** Dated tags on in-memory H2: always runs. */
class H2DatedTagTests extends DatedTagContract {

    private static HikariDataSource pool;

    @BeforeAll
    static void connect() {
        pool = TestDatabase.H2.pool(12);
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
}
