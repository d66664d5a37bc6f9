package io.vesta.machine.db;

import io.vesta.test.TestDatabase;

/** The contract on an in-memory H2 database of the test's own. */
class DbMachineIdProviderH2Tests extends DbMachineIdProviderContract {

    private final String url = TestDatabase.H2.url();

    @Override
    String url() {
        return url;
    }

    @Override
    String sessionIdQuery() {
        return TestDatabase.H2.sessionIdQuery();
    }

    @Override
    String killSessionSql() {
        return TestDatabase.H2.killSessionSql();
    }
}
