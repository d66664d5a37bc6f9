package io.vesta.mybatis;

import io.vesta.test.TestDatabase;

/** The contract on a real PostgreSQL server. */
class PostgresVestaMyBatisInterceptorTests extends ServerVestaMyBatisInterceptorContract {

    PostgresVestaMyBatisInterceptorTests() {
        super(TestDatabase.POSTGRESQL);
    }
}
