package io.vesta.machine.redis;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.resource.ClientResources;
import io.vesta.InvalidSettingException;
import io.vesta.machine.DefaultOwner;
import io.vesta.machine.ForwardingMachineIdProvider;
import io.vesta.machine.LeaseSettings;
import io.vesta.machine.LeasedMachineIdProvider;
import io.vesta.machine.HeartbeatProviderBuilder;
import io.vesta.machine.MachineIdLease;

import java.time.Duration;
import java.util.function.UnaryOperator;

/**
 * Machine IDs leased from a Redis hash, with the guarantees of the database strategy: any number of nodes draw from one
 * range, a restart gets its ID back, a node whose lease runs out stops issuing, and whoever takes an ID over starts
 * after everything its previous holder could have issued. Talks to Redis through Lettuce; the application's
 * {@link RedisClient} may be shared (the provider opens one connection of its own).
 *
 * <p>The hash (by default {@value #DEFAULT_KEY}) holds one field per machine ID, {@code
 * generation|leaseExpiry|highWater|token|owner}, and a field {@code store} naming the server instance the last claim
 * ran on; every read and write is one Lua script. A claim writes only entries still exactly as read, under a new random
 * token; renewals and the release write only entries that carry the holder's token, on the instance it claimed on.
 * After a restart or a failover, which may lose acknowledged writes, claims start only after {@code lease +}
 * {@link Builder#maxClockSkew max-clock-skew}, and every holder stops at its lease end ({@link MachineIdLease}) and
 * claims again. The nodes sharing a key must agree on the clock within {@code max-clock-skew} and use the same lease;
 * the key must never be evicted or edited by hand ({@link #leases()} lists and ends leases safely). Why this is safe:
 * docs/machine-ids.md, "Redis leases".
 */
public final class RedisMachineIdProvider extends ForwardingMachineIdProvider {

    /** The default hash key. */
    public static final String DEFAULT_KEY = "vesta:machine-ids";
    /** The default lease: how long an entry stays this node's after its last successful heartbeat. */
    public static final Duration DEFAULT_LEASE = LeaseSettings.DEFAULT_LEASE;
    /** The default interval between heartbeats. */
    public static final Duration DEFAULT_HEARTBEAT = Duration.ofSeconds(5);
    /** The default bound on how far apart the clocks of the nodes sharing a key may be. */
    public static final Duration DEFAULT_MAX_CLOCK_SKEW = HeartbeatProviderBuilder.DEFAULT_MAX_CLOCK_SKEW;
    /** The longest owner name. */
    public static final int MAX_OWNER_LENGTH = 255;
    private static final LeaseSettings.Limits LIMITS = LeaseSettings.Limits.heartbeat(MAX_OWNER_LENGTH);
    public static final Duration MIN_LEASE = LIMITS.minLease();
    public static final Duration MAX_LEASE = LIMITS.maxLease();
    public static final Duration MIN_HEARTBEAT = LIMITS.minRenewal();
    public static final Duration MAX_CLOCK_SKEW = HeartbeatProviderBuilder.MAX_CLOCK_SKEW;
    /** The longest key. */
    public static final int MAX_KEY_LENGTH = 512;

    private static final System.Logger LOG = System.getLogger(RedisMachineIdProvider.class.getName());

    private final RedisLeaseStore store;
    private final Duration maxClockSkew;

    private RedisMachineIdProvider(RedisLeaseStore store, LeaseSettings settings, Duration maxClockSkew) {
        super(new LeasedMachineIdProvider<>(new RedisLeaseBackend(store, settings, maxClockSkew), settings,
                "RedisMachineIdProvider", LOG));
        this.store = store;
        this.maxClockSkew = maxClockSkew;
    }

    /**
     * A provider that connects to {@code uri} on a client of its own, which {@link #close()} shuts down; on the
     * application's Lettuce {@link ClientResources} (event loops, DNS) if {@link Builder#clientResources} is given.
     */
    public static Builder builder(RedisURI uri) {
        return new Builder(null, uri);
    }

    /**
     * A provider that connects to {@code uri} through {@code client}, which stays the caller's: {@link #close()} closes
     * only the provider's connection.
     */
    public static Builder builder(RedisClient client, RedisURI uri) {
        InvalidSettingException.requireSet("client", client, "an io.lettuce.core.RedisClient");
        return new Builder(client, uri);
    }

    /** Renews the lease once now ({@link LeasedMachineIdProvider#renewNow()}): for tests, as the heartbeat does. */
    boolean heartbeat() {
        return engine().renewNow();
    }

    public String key() {
        return store.key();
    }

    public Duration heartbeatInterval() {
        return engine().settings().renewal();
    }

    public Duration maxClockSkew() {
        return maxClockSkew;
    }

    /** The timeout of every Redis command: the heartbeat interval, at least one second and at most the lease. */
    public Duration commandTimeout() {
        return store.commandTimeout();
    }

    /** The default owner, {@code host:pid} ({@link DefaultOwner#hostAndPid()}): unique among live processes. */
    public static String defaultOwner() {
        return DefaultOwner.hostAndPid();
    }

    /** Settings of a {@link RedisMachineIdProvider}; every setting is checked in {@link #build()}. */
    public static final class Builder extends HeartbeatProviderBuilder<Builder> {

        private final RedisClient client;
        private final RedisURI uri;
        private ClientResources clientResources;
        private String key = DEFAULT_KEY;

        private Builder(RedisClient client, RedisURI uri) {
            super(DEFAULT_LEASE, DEFAULT_HEARTBEAT);
            this.client = client;
            this.uri = uri;
        }

        /** The Lettuce resources a client of the provider's own runs on; its own by default. Ignored with a given client. */
        public Builder clientResources(ClientResources clientResources) {
            this.clientResources = clientResources;
            return this;
        }

        /** The hash key, {@value #DEFAULT_KEY} by default: every node drawing from one range uses the same key. */
        public Builder key(String key) {
            this.key = key;
            return this;
        }

        /**
         * The provider, once every setting is checked.
         * @throws InvalidSettingException naming the first setting that cannot be used
         */
        public RedisMachineIdProvider build() {
            return build(UnaryOperator.identity());
        }

        /** The provider on the store {@code wrap} makes of the real one: a test's, which steps in between its calls. */
        RedisMachineIdProvider build(UnaryOperator<RedisLeaseStore> wrap) {
            InvalidSettingException.requireSet(settingPrefix + "url", uri, "a Redis URI such as redis://host:6379/0");
            // A key follows the rule of an owner name: set, not blank, not too long.
            LeaseSettings.requireOwner(settingPrefix + "key", key, MAX_KEY_LENGTH);
            LeaseSettings settings = settings(LIMITS, RedisMachineIdProvider::defaultOwner);
            Duration maxClockSkew = checkedMaxClockSkew();
            boolean ownsClient = client == null;
            RedisClient redis = !ownsClient ? client : clientResources != null ? RedisClient.create(clientResources)
                    : RedisClient.create();
            RedisLeaseStore store = new RedisLeaseStore(redis, uri, ownsClient, key, commandTimeout(settings));
            return new RedisMachineIdProvider(wrap.apply(store), settings, maxClockSkew);
        }
    }
}
