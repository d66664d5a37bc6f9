package io.vesta.mybatis;

/** The contract on a real PostgreSQL server. */
class PostgresVestaMyBatisInterceptorTests extends ServerVestaMyBatisInterceptorContract {

    PostgresVestaMyBatisInterceptorTests() {
        super("VESTA_TEST_POSTGRES_URL", "PostgreSQL");
    }
}
