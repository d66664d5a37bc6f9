package io.vesta.machine.db;

/** The lease contract on the server named by {@value DbMachineIdProviderPostgresTests#VARIABLE}. */
class DbLeaseContractPostgresTests extends DbLeaseContract {

    private final DbMachineIdProviderPostgresTests database = new DbMachineIdProviderPostgresTests();

    @Override
    String url() {
        return database.url();
    }
}
