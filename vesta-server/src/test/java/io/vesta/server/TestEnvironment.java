package io.vesta.server;

import io.vesta.test.TestDatabase;
import io.vesta.test.TestVariables;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;

/**
 * What the server's tests need from the machine, named by environment variables under vesta-test's one rule
 * ({@link TestVariables}): unset, a test skips naming the variable (fails when {@code CI=true}); set, a missing
 * service fails the test. {@code .ci/run} sets them all.
 */
final class TestEnvironment {

    static final String CHROMIUM = "VESTA_TEST_CHROMIUM";
    static final String CHROMEDRIVER = "VESTA_TEST_CHROMEDRIVER";

    private TestEnvironment() {
    }

    /** The PostgreSQL JDBC URL ({@link TestDatabase#POSTGRESQL}), or the test is skipped. */
    static String postgres() {
        return TestDatabase.POSTGRESQL.url();
    }

    /** The executable a variable names; skipped (on CI failed) when unset, an error when set to something else. */
    static Path executable(String variable) {
        String path = TestVariables.require(variable, "the path of the executable");
        Path file = Path.of(path);
        if (!Files.isExecutable(file)) {
            throw new IllegalStateException(variable + "=" + path + " is not an executable file (install the chromium and"
                    + " chromium-driver packages: .ci/run does)");
        }
        return file;
    }

    /** A table name of this run's own, so that runs never share a table. */
    static String table(String prefix) {
        return TestDatabase.uniqueName(prefix);
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
