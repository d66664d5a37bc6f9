package io.vesta.hibernate;

import io.vesta.test.TestDatabase;

/** The contract on the PostgreSQL server {@value TestDatabase#POSTGRES_URL} names, each test in a schema of its own that is dropped afterwards. */
class PostgresVestaIdGeneratorTests extends VestaIdGeneratorContract {

    @Override
    TestDatabase database() {
        return TestDatabase.POSTGRESQL;
    }
}
