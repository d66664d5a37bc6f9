package io.vesta.machine.db;

import io.vesta.InvalidSettingException;
import io.vesta.jdbc.TableScript;
import io.vesta.machine.DefaultOwner;
import io.vesta.machine.ForwardingMachineIdProvider;
import io.vesta.machine.LeaseSettings;
import io.vesta.machine.LeasedMachineIdProvider;
import io.vesta.machine.LeasedProviderBuilder;
import io.vesta.machine.MachineIdRange;

import javax.sql.DataSource;
import java.time.Duration;

/**
 * Machine IDs leased from a shared table, so that any number of nodes whose addresses come and go draw from one range
 * without a list to maintain. Works with any JDBC {@link DataSource}; the table's DDL for PostgreSQL, MySQL/MariaDB and
 * H2 ships as {@code io/vesta/machine/db/schema-*.sql}. Each row leases one machine ID to an owner until
 * {@code lease_expiry}; a node takes its owner's rows first (a restart gets its IDs back), else the first free block
 * in the range's order (the lowest for embedded nodes, the top one for servers), whole or not at all. Every statement carries a query timeout of the lease rounded up to whole seconds, and
 * {@link #close()} returns within {@link #closeTimeout()}. The protocol is {@link LeasedMachineIdProvider}'s, the SQL
 * {@code DbLeaseBackend}'s; how they keep IDs apart, whatever the clocks: docs/machine-ids.md, "Database leases".
 */
public final class DbMachineIdProvider extends ForwardingMachineIdProvider {

    /** The default table name. */
    public static final String DEFAULT_TABLE = "vesta_machine";
    /** The longest owner name the shipped schemas hold. */
    public static final int MAX_OWNER_LENGTH = 255;
    private static final LeaseSettings.Limits LIMITS = LeaseSettings.Limits.heartbeat(MAX_OWNER_LENGTH);
    /** The default lease: how long a row stays this node's after its last successful heartbeat. */
    public static final Duration DEFAULT_LEASE = LeaseSettings.DEFAULT_LEASE;
    /** The default interval between heartbeats. */
    public static final Duration DEFAULT_HEARTBEAT = Duration.ofSeconds(5);
    /** The shortest lease that may be configured. */
    public static final Duration MIN_LEASE = LIMITS.minLease();
    /** The longest lease that may be configured. */
    public static final Duration MAX_LEASE = LIMITS.maxLease();
    /** The shortest heartbeat interval that may be configured. */
    public static final Duration MIN_HEARTBEAT = LIMITS.minRenewal();

    private final DbLeaseBackend backend;

    private DbMachineIdProvider(DbLeaseBackend backend, LeaseSettings settings) {
        super(new LeasedMachineIdProvider<>(backend, settings, "DbMachineIdProvider",
                System.getLogger(DbMachineIdProvider.class.getName())));
        this.backend = backend;
    }

    public static Builder builder(DataSource dataSource) {
        return new Builder(dataSource);
    }

    /** Renews the lease once now ({@link LeasedMachineIdProvider#renewNow()}): for tests, as the heartbeat does. */
    boolean heartbeat() {
        return engine().renewNow();
    }

    /** Creates the table if it does not exist, with the shipped script for this database. */
    public void initializeSchema() {
        backend.createTable();
    }

    /**
     * The shipped DDL for a database, by the product name JDBC reports ({@code PostgreSQL}, {@code MySQL},
     * {@code MariaDB}, {@code H2}), with comments removed and {@code vesta_machine} replaced by {@code table}.
     * @throws IllegalArgumentException for a product without a script
     * @throws InvalidSettingException for a table name that is no identifier
     */
    public static String schemaScript(String databaseProductName, String table) {
        return DbLeaseBackend.SCRIPT.script(databaseProductName, table);
    }

    public String table() {
        return backend.table();
    }

    public Duration heartbeatInterval() {
        return engine().settings().renewal();
    }

    /**
     * The query timeout of every statement: the lease rounded up to whole seconds, since a statement that
     * outlives the lease can no longer keep it.
     */
    public Duration queryTimeout() {
        return Duration.ofSeconds(backend.queryTimeoutSeconds());
    }

    /** The default owner, {@code host:pid} ({@link DefaultOwner#hostAndPid()}): unique among live processes. */
    public static String defaultOwner() {
        return DefaultOwner.hostAndPid();
    }

    /** Settings of a {@link DbMachineIdProvider}; every setting is checked in {@link #build()}. */
    public static final class Builder extends LeasedProviderBuilder<Builder> {

        private final DataSource dataSource;
        private String table = DEFAULT_TABLE;
        private boolean initializeSchema;

        private Builder(DataSource dataSource) {
            super(DEFAULT_LEASE, DEFAULT_HEARTBEAT);
            this.dataSource = dataSource;
        }

        /** The table name, {@value #DEFAULT_TABLE} by default; an identifier, optionally {@code schema.table}. */
        public Builder table(String table) {
            this.table = table;
            return this;
        }

        /** How often the lease is renewed; 5 s by default, at most a third of the lease. */
        public Builder heartbeat(Duration heartbeat) {
            return renewal(heartbeat);
        }

        /** Whether {@code acquire} first creates the table if it does not exist; off by default. */
        public Builder initializeSchema(boolean initializeSchema) {
            this.initializeSchema = initializeSchema;
            return this;
        }

        /**
         * The provider, once every setting is checked.
         * @throws InvalidSettingException naming the first setting that cannot be used
         */
        public DbMachineIdProvider build() {
            InvalidSettingException.requireSet(settingPrefix + "data-source", dataSource, "a javax.sql.DataSource");
            TableScript.checkTableName(settingPrefix + "table", table);
            LeaseSettings settings = settings(LIMITS, DbMachineIdProvider::defaultOwner);
            return new DbMachineIdProvider(new DbLeaseBackend(dataSource, table, initializeSchema, settings), settings);
        }
    }
}
