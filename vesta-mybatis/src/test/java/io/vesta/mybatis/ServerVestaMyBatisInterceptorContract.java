package io.vesta.mybatis;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The contract on a real database server named by an environment variable, each test on tables of its own that are
 * dropped afterwards; skipped, naming the variable, when it is unset.
 */
abstract class ServerVestaMyBatisInterceptorContract extends VestaMyBatisInterceptorContract {

    private final String variable;
    private final String product;
    private String url;

    ServerVestaMyBatisInterceptorContract(String variable, String product) {
        this.variable = variable;
        this.product = product;
    }

    @BeforeEach
    void server() {
        url = System.getenv(variable);
        assumeTrue(url != null && !url.isBlank(), variable + " is not set: skipping the " + product + " MyBatis tests"
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
