package io.vesta.springdata;

import io.vesta.test.TestDatabase;
import io.vesta.test.TestSchema;

import java.net.URI;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;

/**
 * A schema of this test's own on one {@link TestDatabase} (which skips, or fails in CI, when the server's variable is
 * unset), with one orders table, one tickets table and one invoices table; dropped on close.
 */
final class TestTables implements AutoCloseable {

    final TestDatabase database;
    final String name;
    private final TestSchema schema;

    private TestTables(TestDatabase database, TestSchema schema) {
        this.database = database;
        this.schema = schema;
        this.name = schema.name();
    }

    static TestTables create(TestDatabase database) throws Exception {
        TestTables tables = new TestTables(database, database.createSchema("vesta_sd"));
        try {
            tables.execute("CREATE TABLE " + tables.quoted("orders") + " (id BIGINT PRIMARY KEY, item VARCHAR(100) NOT NULL)",
                    "CREATE TABLE " + tables.quoted("tickets") + " (id VARCHAR(20) PRIMARY KEY, title VARCHAR(100) NOT NULL)",
                    "CREATE TABLE " + tables.quoted("invoices") + " (id BIGINT PRIMARY KEY, amount INTEGER NOT NULL)");
        } catch (Exception | Error e) {
            tables.close();
            throw e;
        }
        return tables;
    }

    /** A JDBC URL whose connections find the tables unqualified. */
    String jdbcUrl() {
        return schema.url();
    }

    /** Host, port, database and user of the server's JDBC URL, for a driver of another kind (R2DBC). */
    URI server() {
        String url = database.url();
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
        try (Connection connection = DriverManager.getConnection(jdbcUrl()); Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery("SELECT count(*) FROM " + quoted(table))) {
            rows.next();
            return rows.getLong(1);
        }
    }

    /**
     * A table name as the entities' {@code @Table} gives it, which Spring Data quotes: H2 would fold an unquoted name
     * to upper case, so every database gets it quoted, in its own quotes.
     */
    private String quoted(String table) {
        return database == TestDatabase.MARIADB ? "`" + table + "`" : "\"" + table + "\"";
    }

    private void execute(String... sql) throws Exception {
        try (Connection connection = DriverManager.getConnection(jdbcUrl()); Statement statement = connection.createStatement()) {
            for (String each : sql) {
                statement.execute(each);
            }
        }
    }

    @Override
    public void close() {
        schema.close();
    }

    @Override
    public String toString() {
        return database.product();
    }
}
