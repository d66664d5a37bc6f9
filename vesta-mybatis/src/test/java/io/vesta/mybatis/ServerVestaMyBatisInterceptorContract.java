package io.vesta.mybatis;

import io.vesta.test.TestDatabase;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;

/**
 * The contract on a real database server named by an environment variable ({@link TestDatabase} skips or fails
 * when it is unset), each test on tables of its own that are dropped afterwards.
 */
abstract class ServerVestaMyBatisInterceptorContract extends VestaMyBatisInterceptorContract {

    private final TestDatabase database;
    private String url;

    ServerVestaMyBatisInterceptorContract(TestDatabase database) {
        this.database = database;
    }

    @BeforeEach
    void server() {
        url = database.url();
    }

    @AfterEach
    void dropTables() throws SQLException {
        if (url != null) {
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
