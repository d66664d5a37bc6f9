-- Machine-ID leases of Vesta's DbMachineIdProvider, for H2: one row per machine ID ever handed out.
-- Times are Unix milliseconds. Run by hand, or let the provider run it (initializeSchema); with a table
-- name other than vesta_machine, replace the name below.
CREATE TABLE IF NOT EXISTS vesta_machine (
    machine_id   INTEGER      NOT NULL PRIMARY KEY, -- the machine ID the row leases
    owner        VARCHAR(255) NOT NULL,             -- who holds it, or last held it (a restart gets it back)
    lease_expiry BIGINT       NOT NULL,             -- the row is free for others from this time on
    high_water   BIGINT       NOT NULL,             -- every ID the owner issued has a time before this
    generation   BIGINT       NOT NULL              -- +1 on every change of hands: fences out a former holder
);
