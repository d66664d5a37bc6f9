package io.vesta.machine.db;

import io.vesta.test.TestDatabase;

/** The contract on the PostgreSQL server {@value TestDatabase#POSTGRES_URL} names. */
class DbMachineIdProviderPostgresTests extends DbMachineIdProviderContract {

    @Override
    String url() {
        return TestDatabase.POSTGRESQL.url();
    }

    @Override
    String sessionIdQuery() {
        return TestDatabase.POSTGRESQL.sessionIdQuery();
    }

    @Override
    String killSessionSql() {
        return TestDatabase.POSTGRESQL.killSessionSql();
    }
}
