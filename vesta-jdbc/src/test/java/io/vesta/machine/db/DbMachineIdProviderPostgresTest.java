package io.vesta.machine.db;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** The contract on a real PostgreSQL server, named by {@value #VARIABLE}; skipped when that is unset. */
class DbMachineIdProviderPostgresTest extends DbMachineIdProviderContract {

    static final String VARIABLE = "VESTA_TEST_POSTGRES_URL";

    @Override
    String url() {
        String url = System.getenv(VARIABLE);
        assumeTrue(url != null && !url.isBlank(), VARIABLE + " is not set (e.g. jdbc:postgresql://127.0.0.1:5432/test?user=postgres):"
                + " skipping the PostgreSQL tests");
        return url;
    }

    @Override
    String sessionIdQuery() {
        return "SELECT pg_backend_pid()";
    }

    @Override
    String killSessionSql() {
        return "SELECT pg_terminate_backend(CAST(? AS INTEGER))";
    }
}
