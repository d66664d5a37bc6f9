package io.vesta.machine.zookeeper;

import io.vesta.InvalidSettingException;
import io.vesta.machine.DefaultOwner;
import io.vesta.machine.ForwardingMachineIdProvider;
import io.vesta.machine.LeaseBackend;
import io.vesta.machine.LeaseSettings;
import io.vesta.machine.LeasedMachineIdProvider;
import io.vesta.machine.LeasedProviderBuilder;
import io.vesta.machine.MachineIdCacheFile;
import io.vesta.machine.MachineIdRange;
import org.apache.curator.framework.CuratorFramework;

import java.net.InetAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.function.UnaryOperator;
import java.util.regex.Pattern;

/**
 * Machine IDs from ZooKeeper, the way Meituan's Leaf-snowflake assigns them: each owner (a stable name such as
 * {@code ip:port}) has a persistent sequential node {@code /vesta/{namespace}/forever/{owner}-0000000007}
 * whose sequence, offset by the range start, is its machine ID for good; a restart finds the node by the
 * owner's name and gets the same ID. Ships in vesta-zookeeper, which brings Curator.
 *
 * <p>Every {@code reportInterval} (3 s) the node writes its current time and lease end into its node. At start-up it
 * refuses when its clock is behind the time it last wrote (the clock was set back, IDs could repeat) or differs by
 * more than {@code maxClockDifference} from the average of the other live nodes' clocks ({@link ClockAgreement}). The
 * ID is also cached in a local file; when ZooKeeper cannot be reached at start-up the cached ID is used, so ZooKeeper
 * being down never stops a restart ({@link CachedMachineId}).
 *
 * <p>With blocks ({@link #acquire(MachineIdRange, int)}), sequence {@code n} holds the range's aligned block {@code n}.
 * A namespace records its block size beside its range start ({@link NamespaceRecord}), and a node with another block
 * size is refused there, since the two would map sequences to overlapping IDs.
 *
 * <p>When the sequence has passed the end of the range, a node takes over the ID of a node that has not
 * reported for {@code reclaimAfter} (7 days): pods whose addresses churn would otherwise use the range up.
 *
 * <p>The lease, and why two processes never issue under one ID at once: every report writes, beside the time,
 * the end of the node's lease ({@code until}, the time plus {@code lease}, 30 s by default), and the node issues
 * only before the {@code until} of its last successful report. Whoever takes a node over (the same owner
 * restarting, or a reclaim) does so with a write conditional on the node's version, and starts after the
 * {@code until} it read ({@link #notBefore()}): a report of the holder between that read and the write changes
 * the version and makes the taker read again; after the write, the holder's next report fails and it stops for
 * good, and it never issued past the {@code until} the taker started after. Every {@code until} the taker writes
 * afterwards (its reports, its closing report) is at least that one, so whoever takes the ID from it in turn starts
 * after the former holder's IDs too. Both bounds are the holder's own clock readings, so clocks far apart cannot make
 * the two overlap. A node cut off from ZooKeeper stops issuing when its lease runs out, which is the price of that
 * guarantee (it used to issue for half of {@code reclaimAfter}). A node that lost its node registers again by itself.
 *
 * <p>Each process holding an owner also keeps an ephemeral node {@code /vesta/{namespace}/live/{owner}}
 * ({@link LiveOwnerNode}). A second live process under the same owner (a copied configuration, two containers with
 * one address) finds it and is refused after waiting up to a lease for it to go, which is what a crashed process's
 * node does when its session expires. The owned Curator client's session timeout is the lease.
 *
 * <p>The local lease, the reporter thread, losing the ID, registering again and the bounded close are the shared
 * {@link LeasedMachineIdProvider}'s, and the cache is the shared {@link MachineIdCacheFile}; the nodes and their
 * versioned writes are {@link ZooKeeperLeaseBackend}'s.
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

    private ZooKeeperMachineIdProvider(ZooKeeperLeaseBackend store, LeaseBackend<ZooKeeperLeaseBackend.NodeVersion> backend,
            LeaseSettings settings) {
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
        return ((LeasedMachineIdProvider<?>) engine()).renewNow();
    }

    /**
     * Stops reporting and writes the exact time of the last ID with a closed mark, so a prompt restart need not
     * wait; the node stays, so the owner gets the same ID back. Closes the Curator client if it is the
     * provider's own. Call after the last ID.
     *
     * <p>Returns within {@link #closeTimeout()} (four connection timeouts and a second) whatever ZooKeeper does: the
     * closing report waits for a report in flight (which close() interrupts), and is skipped without a connection, so
     * that a shutdown never waits out Curator's retries against a dead ensemble. Without the closing mark a restart
     * merely waits for the lease end of the last report.
     */
    @Override
    public void close() {
        super.close();
    }

    public String namespace() {
        return store.namespace;
    }

    public Path cacheFile() {
        return store.cacheFile();
    }

    /** The ZooKeeper node of this owner, once acquired. */
    public String nodePath() {
        return store.nodePath();
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

    static String defaultOwner(String hostName, java.util.Collection<InetAddress> addresses, long pid) {
        return DefaultOwner.hostAddressAndPid(hostName, addresses, pid);
    }

    /** Settings of a {@link ZooKeeperMachineIdProvider}; every setting is checked in {@link #build()}. */
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

        /** The part of {@code /vesta/{namespace}/forever} that separates ID spaces; {@value #DEFAULT_NAMESPACE} by default. */
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

        /**
         * How long the node issues after its last successful report; 30 s by default (or half of reclaimAfter, if
         * that is shorter), at least 3 report intervals and at most half of reclaimAfter. A node cut off from
         * ZooKeeper for longer stops issuing, and a process restarted under the same owner after a crash starts after
         * the crashed run's lease end.
         */
        @Override
        public Builder lease(Duration lease) {
            return super.lease(lease);
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
                throw new InvalidSettingException(prefix + "connect-string", connectString,
                        "a ZooKeeper connect string such as 127.0.0.1:2181", connectString == null ? "is required" : "is blank");
            }
            if (namespace == null || !NAMESPACE.matcher(namespace).matches() || namespace.equals(".") || namespace.equals("..")) {
                throw new InvalidSettingException(prefix + "namespace", namespace, "1 to 100 letters, digits, '_', '-' or"
                        + " '.', other than '.' and '..'", namespace == null ? "is required" : "is not allowed");
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
                    MIN_REPORT_INTERVAL, MAX_REPORT_INTERVAL, "report-interval"), ZooKeeperMachineIdProvider::defaultOwner);
            if (!OWNER.matcher(settings.owner()).matches()) {
                throw new InvalidSettingException(prefix + "owner", settings.owner(), "1 to " + MAX_OWNER_LENGTH
                        + " characters without '/', white space or control characters", "is not allowed");
            }
            ZooKeeperLeaseBackend store = new ZooKeeperLeaseBackend(this, settings, LOG);
            return new ZooKeeperMachineIdProvider(store, wrap.apply(store), settings);
        }
    }
}
