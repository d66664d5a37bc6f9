package io.vesta.segment;

import com.zaxxer.hikari.HikariDataSource;
import io.vesta.test.TestDatabase;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import javax.sql.DataSource;

/** The segment contract on in-memory H2: always runs. */
class H2SegmentIdServiceTest extends SegmentIdServiceContract {

    private static HikariDataSource pool;

    @BeforeAll
    static void connect() {
        pool = TestDatabase.H2.pool(8);
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
        return SegmentSchema.H2;
    }
}
