package io.vesta.machine.db;

import io.vesta.test.TestDatabase;

/** The contract on the MariaDB (or MySQL) server {@value TestDatabase#MARIADB_URL} names. */
class DbMachineIdProviderMariaDbTests extends DbMachineIdProviderContract {

    @Override
    String url() {
        return TestDatabase.MARIADB.url();
    }

    @Override
    String sessionIdQuery() {
        return TestDatabase.MARIADB.sessionIdQuery();
    }

    @Override
    String killSessionSql() {
        return TestDatabase.MARIADB.killSessionSql();
    }
}
