package io.vesta.machine.db;

/** The lease contract on the server named by {@value DbMachineIdProviderPostgresTest#VARIABLE}. */
class DbLeaseContractPostgresTest extends DbLeaseContract {

    private final DbMachineIdProviderPostgresTest database = new DbMachineIdProviderPostgresTest();

    @Override
    String url() {
        return database.url();
    }
}
