package io.vesta.machine.db;

import java.util.concurrent.ThreadLocalRandom;

/** The contract on an in-memory H2 database of the test's own. */
class DbMachineIdProviderH2Test extends DbMachineIdProviderContract {

    private final String url = "jdbc:h2:mem:vesta_" + Long.toHexString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE)
            + ";DB_CLOSE_DELAY=-1";

    @Override
    String url() {
        return url;
    }

    @Override
    String sessionIdQuery() {
        return "SELECT SESSION_ID()";
    }

    @Override
    String killSessionSql() {
        return "SELECT ABORT_SESSION(CAST(? AS INTEGER))";
    }
}
