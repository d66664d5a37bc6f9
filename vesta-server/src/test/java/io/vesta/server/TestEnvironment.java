package io.vesta.server;

import org.junit.jupiter.api.Assumptions;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.UUID;

/**
 * What the server's tests need from the machine, named by environment variables as in the other modules: unset, a
 * test skips naming the variable; set, a missing service fails the test. {@code .ci/run} sets them all.
 */
final class TestEnvironment {

    static final String POSTGRES_URL = "VESTA_TEST_POSTGRES_URL";
    static final String CHROMIUM = "VESTA_TEST_CHROMIUM";
    static final String CHROMEDRIVER = "VESTA_TEST_CHROMEDRIVER";

    private TestEnvironment() {
    }

    /** The PostgreSQL JDBC URL, or the test is skipped. */
    static String postgres() {
        String url = System.getenv(POSTGRES_URL);
        Assumptions.assumeTrue(url != null && !url.isBlank(), POSTGRES_URL + " is not set: no PostgreSQL to test against");
        return url;
    }

    /** The executable a variable names; skipped when unset, an error when set to something that is not there. */
    static Path executable(String variable) {
        String path = System.getenv(variable);
        Assumptions.assumeTrue(path != null && !path.isBlank(), variable + " is not set");
        Path file = Path.of(path);
        if (!Files.isExecutable(file)) {
            throw new IllegalStateException(variable + "=" + path + " is not an executable file (install the chromium and"
                    + " chromium-driver packages: .ci/run does)");
        }
        return file;
    }

    /** A table name of this run's own, so that runs never share a table. */
    static String table(String prefix) {
        return prefix + "_" + UUID.randomUUID().toString().replace("-", "").substring(0, 10);
    }

    /** A segment tag's row, as an operator creates one by hand: vesta-server creates no tag on a GET. */
    static void insertSegmentTag(String url, String table, String tag) throws Exception {
        try (Connection connection = DriverManager.getConnection(url); Statement statement = connection.createStatement()) {
            statement.execute("INSERT INTO " + table + " (biz_tag, max_id, step, description) VALUES ('" + tag
                    + "', 1, 1000, 'test')");
        }
    }

    static void drop(String url, String... tables) throws Exception {
        try (Connection connection = DriverManager.getConnection(url); Statement statement = connection.createStatement()) {
            for (String table : tables) {
                statement.execute("DROP TABLE IF EXISTS " + table);
            }
        }
    }
}
