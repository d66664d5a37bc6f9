package io.vesta.machine.zookeeper;

import io.vesta.InvalidSettingException;
import io.vesta.machine.DefaultOwner;
import io.vesta.machine.ForwardingMachineIdProvider;
import io.vesta.machine.LeaseBackend;
import io.vesta.machine.LeaseSettings;
import io.vesta.machine.LeasedMachineIdProvider;
import io.vesta.machine.LeasedProviderBuilder;
import io.vesta.machine.MachineIdRange;
import org.apache.curator.framework.CuratorFramework;

import java.nio.file.Path;
import java.time.Duration;
import java.util.function.UnaryOperator;
import java.util.regex.Pattern;

/**
 * Machine IDs from ZooKeeper, the way Meituan's Leaf-snowflake assigns them: each owner (a stable name such as
 * {@code ip:port}) has a persistent sequential node {@code /vesta/{namespace}/forever/{owner}-0000000007} whose
 * sequence, counted from the range start up or, for a descending (server) range, from the top down, is its machine ID
 * for good (with blocks, {@link #acquire(MachineIdRange, int)}, sequence {@code n} holds the range's aligned block
 * {@link MachineIdRange#blockInOrder offered n-th}); a restart finds the node by the owner's name and gets the same ID. Ships in vesta-zookeeper, which brings Curator.
 *
 * <p>Every {@code reportInterval} (3 s) the node writes its time and lease end ({@code until}) into its node with a
 * write conditional on the node's version, and issues only before the {@code until} of its last successful report.
 * Whoever takes the node over (the same owner restarting, a reclaim once the sequence has passed the range's end and
 * the node went {@code reclaimAfter} without a report, or after an operator's end) writes the same way and starts
 * after the {@code until} it read ({@link #notBefore()}), past every ID the former holder could issue. Beside that: an
 * ephemeral live node refuses a second live process under one owner, the namespace node records the mapping (range start
 * or top block, order, block size) and refuses a node whose range maps otherwise, a start refuses a clock behind its own last report or more than {@code maxClockDifference} from the
 * other live nodes', and a local cache file lets a node restart while ZooKeeper is down. docs/machine-ids.md
 * ("ZooKeeper") gives the whole argument. The lease itself (reports, losing the ID and registering again, the bounded
 * close) is the shared {@link LeasedMachineIdProvider}'s; the nodes are {@link ZooKeeperLeaseBackend}'s.
 */
public final class ZooKeeperMachineIdProvider extends ForwardingMachineIdProvider {

    public static final String DEFAULT_NAMESPACE = "default";
    public static final Duration DEFAULT_REPORT_INTERVAL = Duration.ofSeconds(3);
    public static final Duration DEFAULT_MAX_CLOCK_DIFFERENCE = Duration.ofSeconds(5);
    public static final Duration DEFAULT_RECLAIM_AFTER = Duration.ofDays(7);
    public static final Duration DEFAULT_CONNECTION_TIMEOUT = Duration.ofSeconds(5);
    /** How long a node issues after its last successful report, by default (or half of reclaimAfter, if shorter). */
    public static final Duration DEFAULT_LEASE = LeaseSettings.DEFAULT_LEASE;
    /** The longest owner name: it is part of a ZooKeeper node's name. */
    public static final int MAX_OWNER_LENGTH = 200;

    private static final Duration MIN_REPORT_INTERVAL = Duration.ofMillis(100);
    private static final Duration MAX_REPORT_INTERVAL = Duration.ofHours(1);
    private static final Duration MAX_CLOCK_DIFFERENCE_LIMIT = Duration.ofHours(1);
    private static final Duration MAX_RECLAIM_AFTER = Duration.ofDays(3650);
    private static final Duration MIN_CONNECTION_TIMEOUT = Duration.ofMillis(100);
    private static final Duration MAX_CONNECTION_TIMEOUT = Duration.ofMinutes(10);
    private static final System.Logger LOG = System.getLogger(ZooKeeperMachineIdProvider.class.getName());
    private static final Pattern NAMESPACE = Pattern.compile("[A-Za-z0-9_.-]{1,100}");
    private static final Pattern OWNER = Pattern.compile("[^/\\s\\p{Cntrl}]{1," + MAX_OWNER_LENGTH + "}");

    private final ZooKeeperLeaseBackend store;

    private ZooKeeperMachineIdProvider(ZooKeeperLeaseBackend store,
            LeaseBackend<ZooKeeperLeaseBackend.NodeVersion> backend, LeaseSettings settings) {
        super(new LeasedMachineIdProvider<>(backend, settings, "ZooKeeperMachineIdProvider", LOG));
        this.store = store;
    }

    /** A provider with a Curator client of its own, closed with the provider. */
    public static Builder builder(String connectString) {
        return new Builder(connectString, null);
    }

    /** A provider on the application's Curator client, which it starts if needed but never closes. */
    public static Builder builder(CuratorFramework client) {
        return new Builder(null, client);
    }

    /**
     * Writes the current time into this node's ZooKeeper node once: what the reporter does every interval.
     * Returns whether the lease is held afterwards.
     */
    boolean report() {
        return engine().renewNow();
    }

    public String namespace() {
        return store.namespace;
    }

    public Path cacheFile() {
        return store.cache.file();
    }

    /** The ZooKeeper node of this owner, once acquired. */
    public String nodePath() {
        return store.nodePath;
    }

    CuratorFramework client() {
        return store.client;
    }

    /**
     * The default owner, {@code name@address:pid} ({@link DefaultOwner#hostAddressAndPid()}); the starter puts the
     * server port in place of the pid.
     */
    public static String defaultOwner() {
        return DefaultOwner.hostAddressAndPid();
    }

    /**
     * Settings of a {@link ZooKeeperMachineIdProvider}; every setting is checked in {@link #build()}. The lease (how
     * long a node issues after its last successful report) is 30 s by default, or half of reclaimAfter if that is
     * shorter, and lies between 3 report intervals and half of reclaimAfter.
     */
    public static final class Builder extends LeasedProviderBuilder<Builder> {

        final String connectString;
        final CuratorFramework client;
        String namespace = DEFAULT_NAMESPACE;
        Duration maxClockDifference = DEFAULT_MAX_CLOCK_DIFFERENCE;
        Duration reclaimAfter = DEFAULT_RECLAIM_AFTER;
        Duration connectionTimeout = DEFAULT_CONNECTION_TIMEOUT;
        Path cacheFile;

        private Builder(String connectString, CuratorFramework client) {
            super(null, DEFAULT_REPORT_INTERVAL);
            this.connectString = connectString;
            this.client = client;
        }

        /** The part of {@code /vesta/{namespace}} that separates ID spaces; {@value #DEFAULT_NAMESPACE} by default. */
        public Builder namespace(String namespace) {
            this.namespace = namespace;
            return this;
        }

        /** How often the node writes its time into its ZooKeeper node; 3 s by default. */
        public Builder reportInterval(Duration reportInterval) {
            return renewal(reportInterval);
        }

        /** How far this node's clock may be from the other live nodes' average at start-up; 5 s by default. */
        public Builder maxClockDifference(Duration maxClockDifference) {
            this.maxClockDifference = maxClockDifference;
            return this;
        }

        /** How long a node must go without a report before its ID may be reclaimed; 7 days by default. */
        public Builder reclaimAfter(Duration reclaimAfter) {
            this.reclaimAfter = reclaimAfter;
            return this;
        }

        /** How long start-up waits for ZooKeeper before it falls back on the cached ID; 5 s by default. */
        public Builder connectionTimeout(Duration connectionTimeout) {
            this.connectionTimeout = connectionTimeout;
            return this;
        }

        /** Where the machine ID is cached; by default under {@code java.io.tmpdir}/vesta/{namespace}/. */
        public Builder cacheFile(Path cacheFile) {
            this.cacheFile = cacheFile;
            return this;
        }

        /**
         * The provider, once every setting is checked.
         * @throws InvalidSettingException naming the first setting that cannot be used
         */
        public ZooKeeperMachineIdProvider build() {
            return build(UnaryOperator.identity());
        }

        /** The provider over {@code wrap} of its backend: a test's way to see or hold up the calls into ZooKeeper. */
        ZooKeeperMachineIdProvider build(UnaryOperator<LeaseBackend<ZooKeeperLeaseBackend.NodeVersion>> wrap) {
            String prefix = settingPrefix;
            if (client == null && (connectString == null || connectString.isBlank())) {
                throw new InvalidSettingException(prefix + "connect-string", connectString, "a ZooKeeper connect string"
                        + " such as 127.0.0.1:2181", connectString == null ? "is required" : "is blank");
            }
            if (namespace == null || !NAMESPACE.matcher(namespace).matches() || namespace.matches("\\.{1,2}")) {
                throw new InvalidSettingException(prefix + "namespace", namespace, "1 to 100 letters, digits, '_', '-'"
                        + " or '.', other than '.' and '..'", namespace == null ? "is required" : "is not allowed");
            }
            // Checked here, not only with the lease: reclaim-after's floor and the lease's are multiples of it.
            String interval = prefix + "report-interval";
            LeaseSettings.requireInRange(interval, renewal(), MIN_REPORT_INTERVAL, MAX_REPORT_INTERVAL, "");
            LeaseSettings.requireInRange(prefix + "max-clock-difference", maxClockDifference, Duration.ofMillis(1),
                    MAX_CLOCK_DIFFERENCE_LIMIT, "");
            String reclaim = prefix + "reclaim-after";
            LeaseSettings.requireInRange(reclaim, reclaimAfter, renewal().multipliedBy(10), MAX_RECLAIM_AFTER,
                    " (at least 10 times " + interval + ")");
            LeaseSettings.requireInRange(prefix + "connection-timeout", connectionTimeout, MIN_CONNECTION_TIMEOUT,
                    MAX_CONNECTION_TIMEOUT, "");
            Duration half = reclaimAfter.dividedBy(2);
            if (lease() == null) {
                lease(DEFAULT_LEASE.compareTo(half) <= 0 ? DEFAULT_LEASE : half);
            }
            LeaseSettings settings = settings(new LeaseSettings.Limits(MAX_OWNER_LENGTH,
                    renewal().multipliedBy(LeaseSettings.RENEWALS_PER_LEASE), half, " (at least "
                    + LeaseSettings.RENEWALS_PER_LEASE + " times " + interval + ", at most half of " + reclaim + ")",
                    MIN_REPORT_INTERVAL, MAX_REPORT_INTERVAL, "report-interval"), DefaultOwner::hostAddressAndPid);
            if (!OWNER.matcher(settings.owner()).matches()) {
                throw new InvalidSettingException(prefix + "owner", settings.owner(), "1 to " + MAX_OWNER_LENGTH
                        + " characters without '/', white space or control characters", "is not allowed");
            }
            ZooKeeperLeaseBackend store = new ZooKeeperLeaseBackend(this, settings, LOG);
            return new ZooKeeperMachineIdProvider(store, wrap.apply(store), settings);
        }
    }
}
