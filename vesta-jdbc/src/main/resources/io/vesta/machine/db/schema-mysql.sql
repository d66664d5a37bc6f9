-- Machine-ID leases of Vesta's DbMachineIdProvider, for MySQL and MariaDB: one row per machine ID ever
-- handed out. Times are Unix milliseconds. Run by hand, or let the provider run it (initializeSchema); with a
-- table name other than vesta_machine, replace the name below.
-- owner compares byte for byte (utf8mb4_bin): the default collations would take 'Node-1' and 'node-1 ' for
-- the same owner. InnoDB, for the row locks the provider's conditional UPDATEs rely on.
CREATE TABLE IF NOT EXISTS vesta_machine (
    machine_id   INTEGER      NOT NULL PRIMARY KEY,
    owner        VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
    lease_expiry BIGINT       NOT NULL,
    high_water   BIGINT       NOT NULL,
    generation   BIGINT       NOT NULL
) ENGINE = InnoDB;
