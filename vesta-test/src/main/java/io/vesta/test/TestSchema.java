package io.vesta.test;

import com.zaxxer.hikari.HikariDataSource;

/**
 * A schema of one test's own, made by {@link TestDatabase#createSchema}: a PostgreSQL schema, a MariaDB database
 * or an in-memory H2 database, empty at first. {@link #close()} drops it with everything in it.
 */
public final class TestSchema implements AutoCloseable {

    private final TestDatabase database;
    private final String name;
    private final String url;
    private final String adminUrl;
    private final String dropSql;

    TestSchema(TestDatabase database, String name, String url, String adminUrl, String dropSql) {
        this.database = database;
        this.name = name;
        this.url = url;
        this.adminUrl = adminUrl;
        this.dropSql = dropSql;
    }

    /** The database it is on. */
    public TestDatabase database() {
        return database;
    }

    /** Its name, unique to this run: qualify a table with it ({@code name + "." + table}) or use {@link #url()}. */
    public String name() {
        return name;
    }

    /** A JDBC URL whose connections work in this schema: unqualified names are created and found in it. */
    public String url() {
        return url;
    }

    /** A pool of up to {@code maxSize} connections on {@link #url()}; close it before the schema. */
    public HikariDataSource pool(int maxSize) {
        return database.pool(url, maxSize);
    }

    /** Drops the schema and everything in it. */
    @Override
    public void close() {
        TestDatabase.execute(adminUrl, dropSql);
    }

    @Override
    public String toString() {
        return database.product() + " schema " + name;
    }
}
