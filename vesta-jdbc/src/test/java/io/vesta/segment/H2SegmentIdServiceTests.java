package io.vesta.segment;

import com.zaxxer.hikari.HikariDataSource;
import io.vesta.test.TestDatabase;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import javax.sql.DataSource;
import java.time.Duration;

/** The segment contract on in-memory H2: always runs. */
class H2SegmentIdServiceTests extends SegmentIdServiceContract {

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

    /**
     * H2 does not cancel a statement that waits for a row lock at the query timeout: its own LOCK_TIMEOUT (2 s by
     * default) ends the wait, with its own message.
     */
    @Override
    Duration lockWaitEnds() {
        return Duration.ofSeconds(2);
    }

    @Override
    String lockWaitFailure() {
        return "Timeout trying to lock table";
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
