package io.vesta.machine.db;

import java.util.concurrent.ThreadLocalRandom;

/** The lease contract on an in-memory H2 database of the test's own. */
class DbLeaseContractH2Tests extends DbLeaseContract {

    private final String url = "jdbc:h2:mem:vesta_" + Long.toHexString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE)
            + ";DB_CLOSE_DELAY=-1";

    @Override
    String url() {
        return url;
    }
}
