package io.vesta.autoconfigure;

import io.vesta.machine.db.DbMachineIdProvider;
import org.springframework.boot.sql.init.DatabaseInitializationMode;

import java.time.Duration;

/** {@code vesta.machine-id.db.*}: machine IDs leased from a shared table. */
public class DbLeaseProperties extends LeaseProperties {

    /** Table of machine-ID leases, one row per machine ID; an SQL identifier, optionally schema.table. */
    private String table = DbMachineIdProvider.DEFAULT_TABLE;

    /** How often the lease is renewed; at most a third of the lease. Defaults to 5s. */
    // Unset means the provider's own default: its class is in vesta-jdbc, which need not be on the classpath.
    private Duration heartbeat;

    /** When to create the lease table at start-up if it is missing, with the shipped DDL for PostgreSQL, MySQL/MariaDB or H2: embedded (only on an embedded database, as Boot does for its own schemas), always, or never (migrations own the schema). */
    private DatabaseInitializationMode initializeSchema = DatabaseInitializationMode.EMBEDDED;

    public String getTable() {
        return table;
    }

    public void setTable(String table) {
        this.table = table;
    }

    public Duration getHeartbeat() {
        return heartbeat;
    }

    public void setHeartbeat(Duration heartbeat) {
        this.heartbeat = heartbeat;
    }

    public DatabaseInitializationMode getInitializeSchema() {
        return initializeSchema;
    }

    public void setInitializeSchema(DatabaseInitializationMode initializeSchema) {
        this.initializeSchema = initializeSchema;
    }
}
