package io.vesta.machine.db;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** The contract on a real MariaDB (or MySQL) server, named by {@value #VARIABLE}; skipped when that is unset. */
class DbMachineIdProviderMariaDbTest extends DbMachineIdProviderContract {

    static final String VARIABLE = "VESTA_TEST_MARIADB_URL";

    @Override
    String url() {
        String url = System.getenv(VARIABLE);
        assumeTrue(url != null && !url.isBlank(), VARIABLE + " is not set (e.g. jdbc:mariadb://127.0.0.1:3306/test?user=root&password=):"
                + " skipping the MariaDB tests");
        return url;
    }

    @Override
    String sessionIdQuery() {
        return "SELECT CONNECTION_ID()";
    }

    @Override
    String killSessionSql() {
        return "KILL ?";
    }
}
