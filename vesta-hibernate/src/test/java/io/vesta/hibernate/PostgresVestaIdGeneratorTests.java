package io.vesta.hibernate;

import org.hibernate.cfg.AvailableSettings;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import java.util.UUID;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** The contract on a real PostgreSQL server, each test in a schema of its own that is dropped afterwards. */
class PostgresVestaIdGeneratorTests extends VestaIdGeneratorContract {

    static final String VARIABLE = "VESTA_TEST_POSTGRES_URL";

    private String url;

    private final String schema = "vesta_hib_" + UUID.randomUUID().toString().replace("-", "").substring(0, 10);

    @BeforeEach
    void server() {
        url = System.getenv(VARIABLE);
        assumeTrue(url != null && !url.isBlank(), VARIABLE + " is not set: skipping the PostgreSQL Hibernate tests"
                + " (set it to a JDBC URL on 127.0.0.1 to run them)");
    }

    @AfterEach
    void dropSchema() throws SQLException {
        if (url != null && !url.isBlank()) {
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
