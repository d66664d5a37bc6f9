package io.vesta.hibernate;

import io.vesta.test.TestDatabase;
import org.hibernate.cfg.AvailableSettings;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;

/** The contract on a real PostgreSQL server, each test in a schema of its own that is dropped afterwards. */
class PostgresVestaIdGeneratorTests extends VestaIdGeneratorContract {

    private String url;

    private final String schema = TestDatabase.uniqueName("vesta_hib");

    @BeforeEach
    void server() {
        url = TestDatabase.POSTGRESQL.url();
    }

    @AfterEach
    void dropSchema() throws SQLException {
        if (url != null) {
            try (Connection connection = DriverManager.getConnection(url); Statement statement = connection.createStatement()) {
                statement.execute("drop schema if exists " + schema + " cascade");
            }
        }
    }

    @Override
    TestSessionFactory start() {
        return TestSessionFactory.start(url, Map.of(AvailableSettings.DEFAULT_SCHEMA, schema,
                AvailableSettings.JAKARTA_HBM2DDL_CREATE_SCHEMAS, true), ENTITIES);
    }
}
