package io.vesta.segment;

import javax.sql.DataSource;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The segment table's DDL, shipped as resources per database ({@code io/vesta/segment/schema-*.sql}), and an
 * optional helper that creates the table if it is missing. Applications with their own migrations (Flyway,
 * Liquibase) copy the script instead.
 */
public final class SegmentSchema {

    public static final String POSTGRESQL = "io/vesta/segment/schema-postgresql.sql";
    public static final String MYSQL = "io/vesta/segment/schema-mysql.sql";
    public static final String H2 = "io/vesta/segment/schema-h2.sql";

    private static final Pattern DEFAULT_NAME = Pattern.compile("\\b" + SegmentIdService.DEFAULT_TABLE + "\\b");

    private SegmentSchema() {
    }

    /** The script for a database, by its {@link java.sql.DatabaseMetaData#getDatabaseProductName() product name}. */
    public static String scriptFor(String databaseProductName) {
        String product = databaseProductName == null ? "" : databaseProductName.toLowerCase(Locale.ROOT);
        if (product.contains("postgresql")) {
            return POSTGRESQL;
        }
        if (product.contains("mysql") || product.contains("mariadb")) {
            return MYSQL;
        }
        if (product.equals("h2")) {
            return H2;
        }
        throw new IllegalArgumentException("No segment table script for database '" + databaseProductName
                + "'; scripts exist for PostgreSQL, MySQL, MariaDB and H2. Create the table by hand from one of "
                + POSTGRESQL + ", " + MYSQL + ", " + H2);
    }

    /** The statements of the script for a database, with the table named {@code table}. */
    public static List<String> statements(String databaseProductName, String table) {
        SegmentTable.checkTableName("table", table);
        String script = read(scriptFor(databaseProductName));
        StringBuilder sql = new StringBuilder();
        for (String line : script.split("\n")) {
            if (!line.strip().startsWith("--")) {
                sql.append(line).append('\n');
            }
        }
        List<String> statements = new ArrayList<>();
        for (String statement : sql.toString().split(";")) {
            if (!statement.isBlank()) {
                statements.add(DEFAULT_NAME.matcher(statement.strip()).replaceAll(Matcher.quoteReplacement(table)));
            }
        }
        return statements;
    }

    /**
     * Creates the segment table named {@code table} if it does not exist, with the script that matches the
     * database. Returns the script used.
     */
    public static String initialize(DataSource dataSource, String table) {
        SegmentTable.checkTableName("table", table);
        String product = null;
        try (Connection connection = dataSource.getConnection()) {
            product = connection.getMetaData().getDatabaseProductName();
            List<String> statements = statements(product, table);
            try (Statement statement = connection.createStatement()) {
                for (String sql : statements) {
                    statement.execute(sql);
                }
            }
            if (!connection.getAutoCommit()) {
                connection.commit();
            }
            return scriptFor(product);
        } catch (SQLException e) {
            throw new IllegalStateException("Could not create the segment table " + table
                    + (product == null ? "" : " on " + product + " with " + scriptFor(product)) + ": " + e.getMessage(), e);
        }
    }

    private static String read(String resource) {
        try (InputStream in = SegmentSchema.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("Resource " + resource + " is missing from vesta-jdbc");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
