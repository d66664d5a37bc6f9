package io.vesta.mybatis;

/** The contract on a real MariaDB server. */
class MariaDbVestaMyBatisInterceptorTests extends ServerVestaMyBatisInterceptorContract {

    MariaDbVestaMyBatisInterceptorTests() {
        super("VESTA_TEST_MARIADB_URL", "MariaDB");
    }
}
