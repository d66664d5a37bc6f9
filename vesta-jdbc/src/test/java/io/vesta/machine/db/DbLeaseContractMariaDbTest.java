package io.vesta.machine.db;

/** The lease contract on the server named by {@value DbMachineIdProviderMariaDbTest#VARIABLE}. */
class DbLeaseContractMariaDbTest extends DbLeaseContract {

    private final DbMachineIdProviderMariaDbTest database = new DbMachineIdProviderMariaDbTest();

    @Override
    String url() {
        return database.url();
    }
}
