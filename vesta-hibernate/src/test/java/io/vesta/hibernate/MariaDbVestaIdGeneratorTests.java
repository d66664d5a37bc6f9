package io.vesta.hibernate;

import io.vesta.test.TestDatabase;

/** The contract on the MariaDB server {@value TestDatabase#MARIADB_URL} names, each test in a schema of its own that is dropped afterwards. */
class MariaDbVestaIdGeneratorTests extends VestaIdGeneratorContract {

    @Override
    TestDatabase database() {
        return TestDatabase.MARIADB;
    }
}
