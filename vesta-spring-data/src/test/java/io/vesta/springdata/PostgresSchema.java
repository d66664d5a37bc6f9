package io.vesta.springdata;

import org.junit.jupiter.api.Assumptions;

import java.net.URI;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.UUID;

/**
 * A schema of this test's own on the PostgreSQL that {@code VESTA_TEST_POSTGRES_URL} names (skipped when unset), with
 * one orders table and one tickets table; dropped on close.
 */
final class PostgresSchema implements AutoCloseable {

    static final String VARIABLE = "VESTA_TEST_POSTGRES_URL";

    final String url;
    final String name = "vesta_sd_" + UUID.randomUUID().toString().replace("-", "").substring(0, 10);

    private PostgresSchema(String url) {
        this.url = url;
    }

    static PostgresSchema create() throws Exception {
        String url = System.getenv(VARIABLE);
        Assumptions.assumeTrue(url != null && !url.isBlank(), VARIABLE + " is not set: no PostgreSQL to test against");
        PostgresSchema schema = new PostgresSchema(url);
        schema.execute("CREATE SCHEMA " + schema.name,
                "CREATE TABLE " + schema.name + ".orders (id BIGINT PRIMARY KEY, item VARCHAR(100) NOT NULL)",
                "CREATE TABLE " + schema.name + ".tickets (id VARCHAR(20) PRIMARY KEY, title VARCHAR(100) NOT NULL)",
                "CREATE TABLE " + schema.name + ".invoices (id BIGINT PRIMARY KEY, amount INTEGER NOT NULL)");
        return schema;
    }

    /** The JDBC URL with this schema as the search path. */
    String jdbcUrl() {
        return url + (url.contains("?") ? "&" : "?") + "currentSchema=" + name;
    }

    /** Host, port, database and user of the JDBC URL, for a driver of another kind (R2DBC). */
    URI server() {
        return URI.create(url.substring("jdbc:".length()));
    }

    String user() {
        String query = server().getQuery();
        if (query != null) {
            for (String pair : query.split("&")) {
                if (pair.startsWith("user=")) {
                    return pair.substring("user=".length());
                }
            }
        }
        return "postgres";
    }

    long count(String table) throws Exception {
        try (Connection connection = DriverManager.getConnection(url); Statement statement = connection.createStatement();
                var rs = statement.executeQuery("SELECT count(*) FROM " + name + "." + table)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private void execute(String... sql) throws Exception {
        try (Connection connection = DriverManager.getConnection(url); Statement statement = connection.createStatement()) {
            for (String each : sql) {
                statement.execute(each);
            }
        }
    }

    @Override
    public void close() throws Exception {
        execute("DROP SCHEMA IF EXISTS " + name + " CASCADE");
    }
}
