package io.vesta.machine.etcd;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.ClientBuilder;
import io.vesta.InvalidSettingException;
import io.vesta.machine.DefaultOwner;
import io.vesta.machine.ForwardingMachineIdProvider;
import io.vesta.machine.LeaseSettings;
import io.vesta.machine.LeasedMachineIdProvider;
import io.vesta.machine.HeartbeatProviderBuilder;
import io.vesta.machine.MachineIdLease;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.function.UnaryOperator;

/**
 * Machine IDs leased from etcd keys, with the guarantees of the database and Redis strategies: any number of nodes draw
 * from one range, a restart gets its ID back, a node whose lease runs out stops issuing, and whoever takes an ID over
 * starts after everything its previous holder could have issued. Talks to etcd through jetcd.
 *
 * <p>Under a prefix (by default {@value #DEFAULT_PREFIX}) each machine ID has a key {@code <prefix><id as 4 digits>}
 * holding {@code generation|leaseExpiry|highWater|token|owner}, and the key {@code <prefix>store} holds the store mark
 * {@code clusterId|settleUntil}. Every write that changes a lease is one etcd transaction compared on the mod revision
 * of every key it writes (the fence). No etcd lease (TTL) backs the keys: the expiry in the value, written by the
 * holder's clock, decides, and the nodes sharing a prefix must agree on the clock within {@code max-clock-skew}
 * ({@link MachineIdLease}). After a restore from a snapshot (a new cluster ID), claims start only after {@code lease +
 * max-clock-skew}. Why this is safe: docs/machine-ids.md, "etcd leases".
 */
public final class EtcdMachineIdProvider extends ForwardingMachineIdProvider {

    /** The default key prefix. */
    public static final String DEFAULT_PREFIX = "/vesta/machine-ids/";
    /** The default lease: how long a key stays this node's after its last successful heartbeat. */
    public static final Duration DEFAULT_LEASE = LeaseSettings.DEFAULT_LEASE;
    /** The default interval between heartbeats. */
    public static final Duration DEFAULT_HEARTBEAT = Duration.ofSeconds(5);
    /** The default bound on how far apart the clocks of the nodes sharing a prefix may be. */
    public static final Duration DEFAULT_MAX_CLOCK_SKEW = HeartbeatProviderBuilder.DEFAULT_MAX_CLOCK_SKEW;
    /** The default time to connect to an endpoint. */
    public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(5);
    /** The longest owner name. */
    public static final int MAX_OWNER_LENGTH = 255;
    private static final LeaseSettings.Limits LIMITS = LeaseSettings.Limits.heartbeat(MAX_OWNER_LENGTH);
    public static final Duration MIN_LEASE = LIMITS.minLease();
    public static final Duration MAX_LEASE = LIMITS.maxLease();
    public static final Duration MIN_HEARTBEAT = LIMITS.minRenewal();
    public static final Duration MAX_CLOCK_SKEW = HeartbeatProviderBuilder.MAX_CLOCK_SKEW;
    public static final Duration MIN_CONNECT_TIMEOUT = Duration.ofMillis(100);
    public static final Duration MAX_CONNECT_TIMEOUT = Duration.ofMinutes(1);
    /** The longest prefix. */
    public static final int MAX_PREFIX_LENGTH = 512;

    private static final System.Logger LOG = System.getLogger(EtcdMachineIdProvider.class.getName());

    private final EtcdLeaseStore store;
    private final Duration maxClockSkew;

    private EtcdMachineIdProvider(EtcdLeaseStore store, LeaseSettings settings, Duration maxClockSkew) {
        super(new LeasedMachineIdProvider<>(new EtcdLeaseBackend(store, settings, maxClockSkew), settings,
                "EtcdMachineIdProvider", LOG));
        this.store = store;
        this.maxClockSkew = maxClockSkew;
    }

    /** A provider on a jetcd {@link Client} of its own for {@code endpoints}, which {@link #close()} closes. */
    public static Builder builder(List<URI> endpoints) {
        return new Builder(null, endpoints);
    }

    /**
     * A provider on the application's {@code client}, which stays the caller's: {@link #close()} leaves it open. User,
     * password, TLS and the connect timeout are the client's then, and refused here.
     */
    public static Builder builder(Client client) {
        InvalidSettingException.requireSet("client", client, "an io.etcd.jetcd.Client");
        return new Builder(client, null);
    }

    /** Renews the lease once now ({@link LeasedMachineIdProvider#renewNow()}): for tests, as the heartbeat does. */
    boolean heartbeat() {
        return engine().renewNow();
    }

    public String prefix() {
        return store.prefix;
    }

    public Duration heartbeatInterval() {
        return engine().settings().renewal();
    }

    public Duration maxClockSkew() {
        return maxClockSkew;
    }

    /** The timeout of every etcd request: the heartbeat interval, at least one second and at most the lease. */
    public Duration commandTimeout() {
        return store.commandTimeout;
    }

    /** The default owner, {@code host:pid} ({@link DefaultOwner#hostAndPid()}): unique among live processes. */
    public static String defaultOwner() {
        return DefaultOwner.hostAndPid();
    }

    /** Settings of an {@link EtcdMachineIdProvider}; every setting is checked in {@link #build()}. */
    public static final class Builder extends HeartbeatProviderBuilder<Builder> {

        private final Client client;
        private final List<URI> endpoints;
        private String prefix = DEFAULT_PREFIX;
        private Duration connectTimeout;
        private String user;
        private String password;
        private String authority;
        private Path trustCertificates;
        private Path certificate;
        private Path key;

        private Builder(Client client, List<URI> endpoints) {
            super(DEFAULT_LEASE, DEFAULT_HEARTBEAT);
            this.client = client;
            this.endpoints = endpoints;
        }

        /**
         * The key prefix, {@value #DEFAULT_PREFIX} by default: every node drawing from one range uses the same
         * prefix, and nothing else writes under it.
         */
        public Builder prefix(String prefix) {
            this.prefix = prefix;
            return this;
        }

        /** How long connecting to an endpoint may take; 5 s by default. Only with a client of the provider's own. */
        public Builder connectTimeout(Duration connectTimeout) {
            this.connectTimeout = connectTimeout;
            return this;
        }

        /** The etcd user (etcd authentication). Only with a client of the provider's own. */
        public Builder user(String user) {
            this.user = user;
            return this;
        }

        /** The etcd user's password. Only with a client of the provider's own. */
        public Builder password(String password) {
            this.password = password;
            return this;
        }

        /** The authority (TLS server name) to expect of the endpoints. Only with a client of the provider's own. */
        public Builder authority(String authority) {
            this.authority = authority;
            return this;
        }

        /** The CA certificates (PEM) the endpoints' certificates are checked against: TLS. */
        public Builder trustCertificates(Path caPem) {
            this.trustCertificates = caPem;
            return this;
        }

        /** This node's client certificate and private key (PEM), for etcd's client-certificate authentication. */
        public Builder keyCertificate(Path certPem, Path keyPem) {
            this.certificate = certPem;
            this.key = keyPem;
            return this;
        }

        /**
         * The provider, once every setting is checked.
         * @throws InvalidSettingException naming the first setting that cannot be used
         */
        public EtcdMachineIdProvider build() {
            return build(UnaryOperator.identity());
        }

        /** The provider on the store {@code wrap} makes of the real one: a test's, which steps in between its calls. */
        EtcdMachineIdProvider build(UnaryOperator<EtcdLeaseStore> wrap) {
            LeaseSettings.requireOwner(settingPrefix + "prefix", prefix, MAX_PREFIX_LENGTH);
            if (!prefix.endsWith("/")) {
                // A range read of "/a" would take in "/ab/..." too: another prefix's keys.
                throw new InvalidSettingException(settingPrefix + "prefix", prefix, "1 to " + MAX_PREFIX_LENGTH
                        + " characters ending in '/'", "does not end in '/'");
            }
            LeaseSettings settings = settings(LIMITS, EtcdMachineIdProvider::defaultOwner);
            Duration maxClockSkew = checkedMaxClockSkew();
            Duration timeout = commandTimeout(settings);
            Client etcd = client != null ? checkGivenClient() : newClient();
            String where = client != null ? "the application's etcd client" : endpoints.toString();
            EtcdLeaseStore store = new EtcdLeaseStore(etcd, client == null, prefix, where, timeout);
            return new EtcdMachineIdProvider(wrap.apply(store), settings, maxClockSkew);
        }

        /** The settings of the TLS files, under the setting prefix: {@code vesta.machine-id.etcd.tls.*}. */
        static final String TRUST_CERTIFICATES = "tls.trust-certificates";
        static final String KEY_CERTIFICATE = "tls.key-certificate";
        static final String PRIVATE_KEY = "tls.private-key";

        /** A given client brings its own connection settings: setting them here too would be ignored, so it fails. */
        private Client checkGivenClient() {
            String[] names = { "connect-timeout", "user", "password", "authority", TRUST_CERTIFICATES,
                    KEY_CERTIFICATE, PRIVATE_KEY };
            Object[] values = { connectTimeout, user, password, authority, trustCertificates, certificate, key };
            for (int i = 0; i < names.length; i++) {
                if (values[i] != null) {
                    throw new InvalidSettingException(settingPrefix + names[i], names[i].equals("password") ? "****"
                            : values[i], "unset, and set on the given client instead",
                            "cannot be used with a given etcd client, whose own settings apply");
                }
            }
            return client;
        }

        private Client newClient() {
            InvalidSettingException.requireSet(settingPrefix + "endpoints", endpoints,
                    "one or more URLs such as http://127.0.0.1:2379");
            if (endpoints.isEmpty()) {
                throw new InvalidSettingException(settingPrefix + "endpoints", endpoints,
                        "one or more URLs such as http://127.0.0.1:2379", "is empty");
            }
            for (URI endpoint : endpoints) {
                if (endpoint == null || endpoint.getHost() == null || endpoint.getPort() < 0
                        || !("http".equals(endpoint.getScheme()) || "https".equals(endpoint.getScheme()))) {
                    throw new InvalidSettingException(settingPrefix + "endpoints", endpoints,
                            "URLs of the form http://host:port or https://host:port", "holds " + endpoint);
                }
            }
            Duration connect = connectTimeout == null ? DEFAULT_CONNECT_TIMEOUT : connectTimeout;
            InvalidSettingException.requireInRange(settingPrefix + "connect-timeout", connect, MIN_CONNECT_TIMEOUT,
                    MAX_CONNECT_TIMEOUT);
            if ((user == null) != (password == null)) {
                String missing = user == null ? "user" : "password";
                throw new InvalidSettingException(settingPrefix + missing, null, "set, since "
                        + (user == null ? "password" : "user") + " is set: etcd authentication needs both",
                        "is required");
            }
            ClientBuilder builder = Client.builder().endpoints(endpoints).connectTimeout(connect);
            if (user != null) {
                LeaseSettings.requireOwner(settingPrefix + "user", user, MAX_OWNER_LENGTH);
                builder.user(ByteSequence.from(user, StandardCharsets.UTF_8))
                        .password(ByteSequence.from(password, StandardCharsets.UTF_8));
            }
            if (authority != null) {
                builder.authority(authority);
            }
            requireReadable(TRUST_CERTIFICATES, trustCertificates);
            if ((certificate == null) != (key == null)) {
                String missing = certificate == null ? KEY_CERTIFICATE : PRIVATE_KEY;
                String set = certificate == null ? PRIVATE_KEY : KEY_CERTIFICATE;
                throw new InvalidSettingException(settingPrefix + missing, null, "a PEM file, set together with "
                        + settingPrefix + set, "is required when " + settingPrefix + set + " is set");
            }
            requireReadable(KEY_CERTIFICATE, certificate);
            requireReadable(PRIVATE_KEY, key);
            if (trustCertificates != null || certificate != null) {
                try {
                    builder.sslContext(ssl -> {
                        if (trustCertificates != null) {
                            ssl.trustManager(trustCertificates.toFile());
                        }
                        if (certificate != null) {
                            ssl.keyManager(certificate.toFile(), key.toFile());
                        }
                    });
                } catch (javax.net.ssl.SSLException | IllegalArgumentException e) {
                    throw new InvalidSettingException(settingPrefix + (certificate != null ? KEY_CERTIFICATE
                            : TRUST_CERTIFICATES), certificate != null ? certificate : trustCertificates,
                            "PEM files that make a TLS context", "makes none: " + e.getMessage());
                }
            }
            return builder.build();
        }

        private void requireReadable(String name, Path path) {
            if (path != null && !Files.isReadable(path)) {
                throw new InvalidSettingException(settingPrefix + name, path, "a readable PEM file", "cannot be read");
            }
        }
    }
}
