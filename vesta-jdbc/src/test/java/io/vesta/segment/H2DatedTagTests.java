package io.vesta.segment;

import io.vesta.test.TestDatabase;

/** Dated tags on in-memory H2: always runs. */
class H2DatedTagTests extends DatedTagContract {

    @Override
    TestDatabase database() {
        return TestDatabase.H2;
    }
}
