package io.vesta.segment;

import io.vesta.jdbc.TableScript;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;

/**
 * The segment table's DDL, shipped as resources per database ({@code io/vesta/segment/schema-*.sql}), and an
 * optional helper that creates the table if it is missing. Applications with their own migrations (Flyway,
 * Liquibase) copy the script instead.
 */
public final class SegmentSchema {

    public static final String POSTGRESQL = "io/vesta/segment/schema-postgresql.sql";
    public static final String MYSQL = "io/vesta/segment/schema-mysql.sql";
    public static final String H2 = "io/vesta/segment/schema-h2.sql";

    static final TableScript SCRIPT = new TableScript("io/vesta/segment", SegmentIdService.DEFAULT_TABLE);

    /** Seconds a CREATE TABLE may take: a DDL statement waits for locks, not for data. */
    private static final int CREATE_TIMEOUT_SECONDS = 30;

    private SegmentSchema() {
    }

    /** The script for a database, by its {@link java.sql.DatabaseMetaData#getDatabaseProductName() product name}. */
    public static String scriptFor(String databaseProductName) {
        return SCRIPT.resource(databaseProductName);
    }

    /** The statements of the script for a database, with the table named {@code table}. */
    public static List<String> statements(String databaseProductName, String table) {
        return SCRIPT.statements(databaseProductName, table);
    }

    /**
     * Creates the segment table named {@code table} if it does not exist, with the script that matches the
     * database; safe when several nodes do it at once. Returns the script used.
     */
    public static String initialize(DataSource dataSource, String table) {
        TableScript.checkTableName("table", table);
        String product = null;
        try (Connection connection = dataSource.getConnection()) {
            product = connection.getMetaData().getDatabaseProductName();
            return SCRIPT.create(connection, table, CREATE_TIMEOUT_SECONDS);
        } catch (SQLException e) {
            throw new IllegalStateException("Could not create the segment table " + table
                    + (product == null ? "" : " on " + product + " with " + scriptFor(product)) + ": " + e.getMessage(), e);
        }
    }
}
