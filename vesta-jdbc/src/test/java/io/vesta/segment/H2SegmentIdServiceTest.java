package io.vesta.segment;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import javax.sql.DataSource;

/** In-memory H2: always runs. */
class H2SegmentIdServiceTest extends SegmentIdServiceContract {

    private static HikariDataSource pool;

    @BeforeAll
    static void connect() {
        pool = TestDatabases.h2();
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
        return null;
    }

    @Override
    String expectedScript() {
        return SegmentSchema.H2;
    }
}
