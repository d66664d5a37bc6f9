package io.vesta.segment;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;

import java.util.UUID;

/** Connection pools for the segment tests: in-memory H2, and real servers named by environment variables. */
final class TestDatabases {

    static final String POSTGRES_URL = "VESTA_TEST_POSTGRES_URL";
    static final String MARIADB_URL = "VESTA_TEST_MARIADB_URL";

    private TestDatabases() {
    }

    static HikariDataSource h2() {
        return pool("jdbc:h2:mem:vesta-segment-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1", "h2");
    }

    /**
     * A pool on the server the variable names, or null when it is unset (the tests then skip, naming the
     * variable). When it is set, a server that cannot be reached fails: the pool connects eagerly.
     */
    static HikariDataSource fromEnvironment(String variable, String database) {
        String url = System.getenv(variable);
        return url == null || url.isBlank() ? null : pool(url, database);
    }

    private static HikariDataSource pool(String url, String name) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url);
        config.setPoolName("vesta-segment-test-" + name);
        config.setMaximumPoolSize(8);
        config.setConnectionTimeout(5_000);
        config.setInitializationFailTimeout(5_000);
        return new HikariDataSource(config);
    }

    static String randomTable() {
        return "vesta_segment_t" + UUID.randomUUID().toString().replace("-", "").substring(0, 10);
    }
}
