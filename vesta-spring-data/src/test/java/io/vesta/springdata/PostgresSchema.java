package io.vesta.springdata;

import io.vesta.test.TestDatabase;
import io.vesta.test.TestSchema;

import java.net.URI;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;

/**
 * A schema of this test's own on the PostgreSQL that {@value TestDatabase#POSTGRES_URL} names ({@link TestDatabase}
 * skips or fails when it is unset), with one orders table, one tickets table and one invoices table; dropped on close.
 */
final class PostgresSchema implements AutoCloseable {

    final String url;
    final String name;
    private final TestSchema schema;

    private PostgresSchema(TestSchema schema) {
        this.schema = schema;
        this.url = TestDatabase.POSTGRESQL.url();
        this.name = schema.name();
    }

    static PostgresSchema create() throws Exception {
        PostgresSchema schema = new PostgresSchema(TestDatabase.POSTGRESQL.createSchema("vesta_sd"));
        try {
            String name = schema.name;
            schema.execute("CREATE TABLE " + name + ".orders (id BIGINT PRIMARY KEY, item VARCHAR(100) NOT NULL)",
                    "CREATE TABLE " + name + ".tickets (id VARCHAR(20) PRIMARY KEY, title VARCHAR(100) NOT NULL)",
                    "CREATE TABLE " + name + ".invoices (id BIGINT PRIMARY KEY, amount INTEGER NOT NULL)");
        } catch (Exception | Error e) {
            schema.close();
            throw e;
        }
        return schema;
    }

    /** The JDBC URL with this schema as the search path. */
    String jdbcUrl() {
        return schema.url();
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
    public void close() {
        schema.close();
    }
}
