package io.vesta.segment;

import com.zaxxer.hikari.HikariDataSource;
import io.vesta.test.TestDatabase;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import javax.sql.DataSource;

/** Dated tags on the PostgreSQL server {@value TestDatabase#POSTGRES_URL} names. */
class PostgresDatedTagTests extends DatedTagContract {

    private static HikariDataSource pool;

    @BeforeAll
    static void connect() {
        pool = TestDatabase.POSTGRESQL.pool(12);
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
