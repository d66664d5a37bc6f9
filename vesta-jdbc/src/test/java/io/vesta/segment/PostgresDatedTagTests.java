package io.vesta.segment;

import io.vesta.test.TestDatabase;

/** Dated tags on the PostgreSQL server {@value TestDatabase#POSTGRES_URL} names. */
class PostgresDatedTagTests extends DatedTagContract {

    @Override
    TestDatabase database() {
        return TestDatabase.POSTGRESQL;
    }
}
