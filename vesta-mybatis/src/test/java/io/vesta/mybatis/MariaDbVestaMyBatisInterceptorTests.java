package io.vesta.mybatis;

import io.vesta.test.TestDatabase;

/** The contract on a real MariaDB server. */
class MariaDbVestaMyBatisInterceptorTests extends ServerVestaMyBatisInterceptorContract {

    MariaDbVestaMyBatisInterceptorTests() {
        super(TestDatabase.MARIADB);
    }
}
