package io.vesta.jdbc;

import io.vesta.InvalidSettingException;

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
 * One of Vesta's tables as shipped DDL: a script per database under one resource folder
 * ({@code schema-postgresql.sql}, {@code schema-mysql.sql} for MySQL and MariaDB, {@code schema-h2.sql}), written
 * for the default table name and read with the configured one. The lease table and the segment table are both
 * read, named and created here, under one table-name rule.
 */
public final class TableScript {

    /** What a table name may be, as a phrase that completes "set it to ...": it is spliced into SQL text. */
    public static final String TABLE_NAME_ALLOWED = "an unquoted SQL identifier (letters, digits and _, not starting"
            + " with a digit, at most 63 characters), optionally schema.table";

    private static final Pattern TABLE_NAME = Pattern.compile("([A-Za-z_][A-Za-z0-9_]{0,62}\\.)?[A-Za-z_][A-Za-z0-9_]{0,62}");

    private final String folder;
    private final Pattern defaultName;

    /**
     * @param folder the resource folder of the scripts, e.g. {@code io/vesta/segment}
     * @param defaultTable the table name the scripts are written for
     */
    public TableScript(String folder, String defaultTable) {
        this.folder = folder;
        this.defaultName = Pattern.compile("\\b" + Pattern.quote(defaultTable) + "\\b");
    }

    /**
     * Checks a table name against the one rule for Vesta's tables.
     * @throws InvalidSettingException naming {@code setting} when the name is missing or no unquoted identifier
     */
    public static String checkTableName(String setting, String table) {
        if (table == null || !TABLE_NAME.matcher(table).matches()) {
            throw new InvalidSettingException(setting, table, TABLE_NAME_ALLOWED,
                    table == null ? "is required" : "is not an unquoted SQL identifier");
        }
        return table;
    }

    /**
     * The classpath resource of the script for a database, by the product name JDBC reports
     * ({@code PostgreSQL}, {@code MySQL}, {@code MariaDB}, {@code H2}).
     * @throws IllegalArgumentException for a database without a script
     */
    public String resource(String databaseProductName) {
        String product = databaseProductName == null ? "" : databaseProductName.toLowerCase(Locale.ROOT);
        String dialect;
        if (product.contains("postgres")) {
            dialect = "postgresql";
        } else if (product.contains("mysql") || product.contains("mariadb")) {
            dialect = "mysql";
        } else if (product.equals("h2")) {
            dialect = "h2";
        } else {
            throw new IllegalArgumentException("No schema script for database '" + databaseProductName
                    + "'; scripts ship for PostgreSQL, MySQL/MariaDB and H2 (" + folder
                    + "/schema-*.sql): create the table by hand from one of them");
        }
        return folder + "/schema-" + dialect + ".sql";
    }

    /** The script's statements for a database, without comments or semicolons, naming {@code table}. */
    public List<String> statements(String databaseProductName, String table) {
        checkTableName("table", table);
        String resource = resource(databaseProductName);
        StringBuilder sql = new StringBuilder();
        for (String line : read(resource).split("\n")) {
            int comment = line.indexOf("--");
            sql.append(comment < 0 ? line : line.substring(0, comment)).append('\n');
        }
        List<String> statements = new ArrayList<>();
        for (String statement : sql.toString().split(";")) {
            if (!statement.isBlank()) {
                statements.add(defaultName.matcher(statement.strip()).replaceAll(Matcher.quoteReplacement(table)));
            }
        }
        return statements;
    }

    /** The script for a database as one text, each statement ended by a semicolon, naming {@code table}. */
    public String script(String databaseProductName, String table) {
        return String.join(";\n\n", statements(databaseProductName, table)) + ";";
    }

    /**
     * Creates the table on {@code connection} if it does not exist. Nodes that start together all run this: a
     * {@code CREATE TABLE IF NOT EXISTS} that loses the race to another node's can still fail (PostgreSQL's fails
     * on its catalog's unique index once the winner commits), so a failed create runs once more, and succeeds then
     * if the table is there. Commits when the connection is not in auto-commit.
     * @return the resource of the script used
     */
    public String create(Connection connection, String table, int queryTimeoutSeconds) throws SQLException {
        String product = connection.getMetaData().getDatabaseProductName();
        List<String> statements = statements(product, table);
        try {
            execute(connection, statements, queryTimeoutSeconds);
        } catch (SQLException lostRace) {
            if (!connection.getAutoCommit()) {
                connection.rollback();
            }
            try {
                execute(connection, statements, queryTimeoutSeconds);
            } catch (SQLException again) {
                again.addSuppressed(lostRace);
                throw again;
            }
        }
        return resource(product);
    }

    private static void execute(Connection connection, List<String> statements, int queryTimeoutSeconds) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            statement.setQueryTimeout(queryTimeoutSeconds);
            for (String sql : statements) {
                statement.execute(sql);
            }
        }
        if (!connection.getAutoCommit()) {
            connection.commit();
        }
    }

    private static String read(String resource) {
        try (InputStream in = TableScript.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("vesta-jdbc is missing its resource " + resource);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
