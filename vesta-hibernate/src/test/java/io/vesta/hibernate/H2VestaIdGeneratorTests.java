package io.vesta.hibernate;

import io.vesta.test.TestDatabase;

/** The contract on in-memory H2, each test in a schema of its own that is dropped afterwards. */
class H2VestaIdGeneratorTests extends VestaIdGeneratorContract {

    @Override
    TestDatabase database() {
        return TestDatabase.H2;
    }
}
