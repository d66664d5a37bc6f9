package io.vesta.machine.db;

/** The lease contract on the server named by {@value DbMachineIdProviderMariaDbTests#VARIABLE}. */
class DbLeaseContractMariaDbTests extends DbLeaseContract {

    private final DbMachineIdProviderMariaDbTests database = new DbMachineIdProviderMariaDbTests();

    @Override
    String url() {
        return database.url();
    }
}
