package io.vesta.mybatis;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** The contract on a real PostgreSQL server, each test on tables of its own that are dropped afterwards. */
class PostgresVestaMyBatisInterceptorTests extends VestaMyBatisInterceptorContract {

    static final String VARIABLE = "VESTA_TEST_POSTGRES_URL";

    private String url;

    @BeforeEach
    void server() {
        url = System.getenv(VARIABLE);
        assumeTrue(url != null && !url.isBlank(), VARIABLE + " is not set: skipping the PostgreSQL MyBatis tests"
                + " (set it to a JDBC URL on 127.0.0.1 to run them)");
    }

    @AfterEach
    void dropTables() throws SQLException {
        if (url != null && !url.isBlank()) {
            try (Connection connection = DriverManager.getConnection(url)) {
                tables.drop(connection);
            }
        }
    }

    @Override
    String url() {
        return url;
    }
}
