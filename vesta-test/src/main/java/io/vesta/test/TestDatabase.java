package io.vesta.test;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The databases Vesta's tests run on: in-memory H2, which always runs, and the PostgreSQL and MariaDB servers named
 * by {@value #POSTGRES_URL} and {@value #MARIADB_URL} (JDBC URLs carrying their credentials). A server's URL follows
 * {@link TestVariables#require the one rule}: unset, the test is skipped (or fails when {@code CI=true}); set, a
 * server that cannot be reached fails the test.
 *
 * <p>Tests on a server share its database: each works in tables of its own ({@link #uniqueName}) or in a
 * {@link #createSchema fresh schema}, and drops them afterwards.
 */
public enum TestDatabase {

    /** In-memory H2: a new database at each {@link #url()}, user {@code sa} as Spring Boot connects to it. */
    H2("H2", null, null, "SELECT SESSION_ID()", "SELECT ABORT_SESSION(CAST(? AS INTEGER))"),

    /** The PostgreSQL server {@value #POSTGRES_URL} names. */
    POSTGRESQL("PostgreSQL", TestDatabase.POSTGRES_URL, "jdbc:postgresql://127.0.0.1:5432/test?user=postgres",
            "SELECT pg_backend_pid()", "SELECT pg_terminate_backend(CAST(? AS INTEGER))"),

    /** The MariaDB (or MySQL) server {@value #MARIADB_URL} names. */
    MARIADB("MariaDB", TestDatabase.MARIADB_URL, "jdbc:mariadb://127.0.0.1:3306/test?user=root&password=",
            "SELECT CONNECTION_ID()", "KILL ?");

    /** The environment variable naming the PostgreSQL test server's JDBC URL. */
    public static final String POSTGRES_URL = "VESTA_TEST_POSTGRES_URL";

    /** The environment variable naming the MariaDB test server's JDBC URL. */
    public static final String MARIADB_URL = "VESTA_TEST_MARIADB_URL";

    private static final AtomicInteger POOLS = new AtomicInteger();

    private final String product;
    private final String variable;
    private final String example;
    private final String sessionIdQuery;
    private final String killSessionSql;
    /** The first reachability check of the server's URL, kept for the JVM: null until then, "" when it passed. */
    private volatile String unreachable;

    TestDatabase(String product, String variable, String example, String sessionIdQuery, String killSessionSql) {
        this.product = product;
        this.variable = variable;
        this.example = example;
        this.sessionIdQuery = sessionIdQuery;
        this.killSessionSql = killSessionSql;
    }

    /** The product name Vesta's DDL scripts are chosen by: {@code H2}, {@code PostgreSQL}, {@code MariaDB}. */
    public String product() {
        return product;
    }

    /** The environment variable naming the server's URL; null for H2, which needs none. */
    public String variable() {
        return variable;
    }

    /** Whether a test on this database runs here: always for H2, when its variable is set for a server. */
    public boolean configured() {
        if (variable == null) {
            return true;
        }
        String url = System.getenv(variable);
        return url != null && !url.isBlank();
    }

    /**
     * The JDBC URL to test on. For H2, a new empty in-memory database at each call (kept while the JVM runs): keep
     * the URL for the test's life. For a server, the URL its variable names, the same at each call; the test is
     * skipped when it is unset (fails when {@code CI=true}), and fails when the server cannot be reached.
     */
    public String url() {
        if (variable == null) {
            return "jdbc:h2:mem:" + uniqueName("vesta") + ";DB_CLOSE_DELAY=-1;USER=sa";
        }
        String url = TestVariables.require(variable, example);
        requireReachable(url);
        return url;
    }

    private void requireReachable(String url) {
        String problem = unreachable;
        if (problem == null) {
            synchronized (this) {
                problem = unreachable;
                if (problem == null) {
                    try (Connection connection = DriverManager.getConnection(url)) {
                        problem = connection.isValid(5) ? "" : "the connection it opened is not valid";
                    } catch (SQLException e) {
                        problem = e.toString();
                    }
                    unreachable = problem;
                }
            }
        }
        if (!problem.isEmpty()) {
            throw new AssertionError(variable + " is set to " + withoutQuery(url) + ", but that " + product
                    + " server cannot be reached: " + problem);
        }
    }

    /** The URL without its query, where a password would be. */
    private static String withoutQuery(String url) {
        int query = url.indexOf('?');
        return query < 0 ? url : url.substring(0, query) + "?...";
    }

    /**
     * A pool of up to {@code maxSize} connections on {@link #url()}; close it when the test is done.
     *
     * @see #pool(String, int)
     */
    public HikariDataSource pool(int maxSize) {
        return pool(url(), maxSize);
    }

    /**
     * A pool of up to {@code maxSize} connections on {@code url} (a URL of this database, such as a
     * {@link TestSchema#url() schema's}). It connects at once, so a database that is not there fails here, within
     * five seconds; a connection is waited for five seconds at most.
     */
    public HikariDataSource pool(String url, int maxSize) {
        if (maxSize < 1) {
            throw new IllegalArgumentException("maxSize must be at least 1, was " + maxSize);
        }
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url);
        config.setPoolName("vesta-test-" + name().toLowerCase(java.util.Locale.ROOT) + "-" + POOLS.incrementAndGet());
        config.setMaximumPoolSize(maxSize);
        config.setConnectionTimeout(5_000);
        config.setInitializationFailTimeout(5_000);
        return new HikariDataSource(config);
    }

    /**
     * A schema of the test's own, empty, named {@code prefix} and a unique suffix: on PostgreSQL a schema, on
     * MariaDB a database, on H2 a schema in a new in-memory database. {@link TestSchema#close()} drops it with
     * everything in it.
     */
    public TestSchema createSchema(String prefix) {
        String name = uniqueName(prefix);
        if (this == H2) {
            String url = "jdbc:h2:mem:" + name + ";DB_CLOSE_DELAY=-1;USER=sa;INIT=CREATE SCHEMA IF NOT EXISTS " + name
                    + "\\;SET SCHEMA " + name;
            return new TestSchema(this, name, url, url, "SHUTDOWN");
        }
        String base = url();
        if (this == POSTGRESQL) {
            execute(base, "CREATE SCHEMA " + name);
            return new TestSchema(this, name, base + (base.contains("?") ? "&" : "?") + "currentSchema=" + name, base,
                    "DROP SCHEMA IF EXISTS " + name + " CASCADE");
        }
        execute(base, "CREATE DATABASE " + name);
        return new TestSchema(this, name, withDatabase(base, name), base, "DROP DATABASE IF EXISTS " + name);
    }

    /** {@code url} with its database (the path after host and port) replaced by {@code database}. */
    static String withDatabase(String url, String database) {
        int host = url.indexOf("//") + 2;
        int query = url.indexOf('?', host);
        int end = query < 0 ? url.length() : query;
        int path = url.indexOf('/', host);
        if (path < 0 || path > end) {
            path = end;
        }
        return url.substring(0, path) + "/" + database + url.substring(end);
    }

    /** SQL giving the current session's ID on the server, as a number. */
    public String sessionIdQuery() {
        return sessionIdQuery;
    }

    /**
     * SQL that ends the server session whose ID is bound as its only parameter, from another session: its
     * connection breaks under it, as when the server restarts or a proxy drops it.
     */
    public String killSessionSql() {
        return killSessionSql;
    }

    /** The server's ID of the session behind {@code connection}. */
    public long sessionId(Connection connection) throws SQLException {
        try (Statement statement = connection.createStatement();
                ResultSet rs = statement.executeQuery(sessionIdQuery)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /** Ends session {@code sessionId} of the database at {@code url}, over a connection of its own. */
    public void killSession(String url, long sessionId) throws SQLException {
        try (Connection admin = DriverManager.getConnection(url);
                PreparedStatement kill = admin.prepareStatement(killSessionSql)) {
            kill.setLong(1, sessionId);
            kill.execute();
        }
    }

    /** {@code prefix}, an underscore and ten random hexadecimal digits: a table or schema name no other run has. */
    public static String uniqueName(String prefix) {
        return prefix + "_" + UUID.randomUUID().toString().replace("-", "").substring(0, 10);
    }

    static void execute(String url, String sql) {
        try (Connection connection = DriverManager.getConnection(url);
                Statement statement = connection.createStatement()) {
            statement.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException("could not run " + sql + " on " + withoutQuery(url) + ": " + e.getMessage(),
                    e);
        }
    }
}
