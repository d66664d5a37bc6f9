package io.vesta.segment;

import io.vesta.test.TestDatabase;

/** Dated tags on the MariaDB server {@value TestDatabase#MARIADB_URL} names. */
class MariaDbDatedTagTests extends DatedTagContract {

    @Override
    TestDatabase database() {
        return TestDatabase.MARIADB;
    }
}
