package io.vesta.machine.zookeeper;

import io.vesta.InvalidSettingException;
import io.vesta.machine.DefaultOwner;
import io.vesta.machine.LeaseLifecycle;
import io.vesta.machine.MachineIdBlock;
import io.vesta.machine.MachineIdCacheFile;
import io.vesta.machine.LeaseChangeRefusedException;
import io.vesta.machine.MachineIdGrant;
import io.vesta.machine.MachineIdLease;
import io.vesta.machine.MachineIdLeaseInfo;
import io.vesta.machine.MachineIdLeases;
import io.vesta.machine.MachineIdProvider;
import io.vesta.machine.MachineIdRange;
import io.vesta.machine.MachineIdUnavailableException;
import io.vesta.time.TimeSource;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.api.transaction.CuratorTransactionResult;
import org.apache.curator.framework.imps.CuratorFrameworkState;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;

import java.io.IOException;
import java.io.StringReader;
import java.lang.System.Logger.Level;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

/**
 * Machine IDs from ZooKeeper, the way Meituan's Leaf-snowflake assigns them: each owner (a stable name such as
 * {@code ip:port}) has a persistent sequential node {@code /vesta/{namespace}/forever/{owner}-0000000007}
 * whose sequence, offset by the range start, is its machine ID for good; a restart finds the node by the
 * owner's name and gets the same ID. Ships in vesta-zookeeper, which brings Curator.
 *
 * <p>Every {@code reportInterval} (3 s) the node writes its current time and lease end into its node. At start-up it refuses
 * when its clock is behind the time it last wrote (the clock was set back, IDs could repeat) or differs by
 * more than {@code maxClockDifference} from the average of the other live nodes' clocks. The ID is also
 * cached in a local file; when ZooKeeper cannot be reached at start-up the cached ID is used, so ZooKeeper
 * being down never stops a restart.
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
 * after the former holder's IDs too. Both bounds are the holder's own
 * clock readings, so clocks far apart cannot make the two overlap. A node cut off from ZooKeeper stops issuing
 * when its lease runs out, which is the price of that guarantee (it used to issue for half of
 * {@code reclaimAfter}).
 *
 * <p>Each process holding an owner also keeps an ephemeral node {@code /vesta/{namespace}/live/{owner}}. A second
 * live process under the same owner (a copied configuration, two containers with one address) finds it and is
 * refused after waiting up to a lease for it to go, which is what a crashed process's node does when its session
 * expires. The owned Curator client's session timeout is the lease.
 *
 * <p>A start from the cached ID (ZooKeeper unreachable) starts after the cached {@code until} and caches its own
 * lease end before it issues, so a later restart on this host starts after it too. It is the one path that
 * ZooKeeper does not fence: safe as long as no other process uses the owner, which the default owner (host name,
 * address, port) makes so.
 *
 * <p>The local lease, the reporter thread, losing the ID and the bounded close are the shared
 * {@link LeaseLifecycle}'s, and the cache is the shared {@link MachineIdCacheFile}; this class holds the nodes,
 * the versioned writes and the checks of the clock.
 */
public final class ZooKeeperMachineIdProvider implements MachineIdProvider {

    public static final String DEFAULT_NAMESPACE = "default";
    public static final Duration DEFAULT_REPORT_INTERVAL = Duration.ofSeconds(3);
    public static final Duration DEFAULT_MAX_CLOCK_DIFFERENCE = Duration.ofSeconds(5);
    public static final Duration DEFAULT_RECLAIM_AFTER = Duration.ofDays(7);
    public static final Duration DEFAULT_CONNECTION_TIMEOUT = Duration.ofSeconds(5);
    /** How long a node issues after its last successful report, by default (or half of reclaimAfter, if shorter). */
    public static final Duration DEFAULT_LEASE = LeaseLifecycle.DEFAULT_LEASE;
    /** The longest owner name: it is part of a ZooKeeper node's name. */
    public static final int MAX_OWNER_LENGTH = 200;

    private static final Duration MIN_REPORT_INTERVAL = Duration.ofMillis(100);
    private static final Duration MAX_REPORT_INTERVAL = Duration.ofHours(1);
    private static final Duration MAX_CLOCK_DIFFERENCE_LIMIT = Duration.ofHours(1);
    private static final Duration MAX_RECLAIM_AFTER = Duration.ofDays(3650);
    private static final Duration MIN_CONNECTION_TIMEOUT = Duration.ofMillis(100);
    private static final Duration MAX_CONNECTION_TIMEOUT = Duration.ofMinutes(10);
    /**
     * Other nodes count as live when ZooKeeper saw a report from them within this many report intervals. Each
     * report is moved on by the time ZooKeeper has seen pass since, so an older one is still a fair sample of
     * that node's clock; the window only keeps long-dead nodes out, and a generous one is robust to a node
     * whose reporter was held up for a moment.
     */
    private static final int LIVE_INTERVALS = 10;

    private static final System.Logger LOG = System.getLogger(ZooKeeperMachineIdProvider.class.getName());
    private static final Pattern NAMESPACE = Pattern.compile("[A-Za-z0-9_.-]{1,100}");
    private static final Pattern OWNER = Pattern.compile("[^/\\s\\p{Cntrl}]{1," + MAX_OWNER_LENGTH + "}");
    private static final Pattern SEQUENCE = Pattern.compile("\\d{10}");
    private static final byte[] EMPTY = new byte[0];

    private final CuratorFramework client;
    private final boolean ownsClient;
    private final String connectString;
    private final String namespace;
    private final String owner;
    private final long reportIntervalMillis;
    private final long maxClockDifferenceMillis;
    private final long reclaimAfterMillis;
    /** How old a cached ID may be and still be used: half of reclaimAfter, the margin that keeps reclaimers away. */
    private final long holdMillis;
    /** How long the node may issue after its last successful report; every report writes that end into the node. */
    private final long leaseMillis;
    private final String livePath;
    private final long connectionTimeoutMillis;
    private final MachineIdCacheFile cache;
    private final TimeSource timeSource;
    private final String namespacePath;
    private final String foreverPath;
    /** Marks this process's writes, to tell a write of ours whose answer was lost from someone else's. */
    private final String process = Long.toHexString(new SecureRandom().nextLong());
    /**
     * The local lease, the reporter thread, {@code closed} and {@code lost}. A report that returns after close()
     * began cannot revive the lease.
     */
    private final LeaseLifecycle lifecycle;

    /** Set by acquire before the lifecycle publishes it, read under this object's monitor. */
    private volatile long machineId = -1;
    /** How many machine IDs from {@code machineId} this node holds; set by acquire. */
    /** The range acquire() registered in: the namespace's, by which the lease admin maps sequences to IDs. */
    private volatile MachineIdRange range;
    private volatile int blockSize = 1;
    private volatile String nodePath;
    private volatile boolean fromCache;
    private volatile String takenFrom;
    private volatile Long notBefore;
    private int nodeVersion;
    private long lastReported;
    private long lastUntil;

    private ZooKeeperMachineIdProvider(Builder builder) {
        this.ownsClient = builder.client == null;
        this.connectString = builder.connectString;
        this.namespace = builder.namespace;
        this.owner = builder.owner;
        this.reportIntervalMillis = builder.reportInterval.toMillis();
        this.maxClockDifferenceMillis = builder.maxClockDifference.toMillis();
        this.reclaimAfterMillis = builder.reclaimAfter.toMillis();
        this.holdMillis = reclaimAfterMillis / 2;
        this.leaseMillis = builder.lease.toMillis();
        this.connectionTimeoutMillis = builder.connectionTimeout.toMillis();
        this.cache = new MachineIdCacheFile(builder.cacheFile != null ? builder.cacheFile
                : Path.of(System.getProperty("java.io.tmpdir"), "vesta", namespace, fileName(owner) + ".machine-id"));
        this.timeSource = builder.timeSource;
        this.lifecycle = new LeaseLifecycle(owner, namespace, "report", timeSource, LOG).regainWith(this::regain);
        this.namespacePath = "/vesta/" + namespace;
        this.foreverPath = namespacePath + "/forever";
        this.livePath = namespacePath + "/live/" + owner;
        this.client = builder.client != null ? builder.client : CuratorFrameworkFactory.builder()
                .connectString(connectString)
                .connectionTimeoutMs((int) connectionTimeoutMillis)
                // A crashed process's live node goes when its session expires: within a lease, so that a restart
                // under the same owner waits no longer for it than it waits for the crashed run's lease anyway.
                .sessionTimeoutMs((int) Math.min(Integer.MAX_VALUE, leaseMillis))
                .retryPolicy(new ExponentialBackoffRetry(100, 3))
                .build();
    }

    /** A provider with a Curator client of its own, closed with the provider. */
    public static Builder builder(String connectString) {
        return new Builder(connectString, null);
    }

    /** A provider on the application's Curator client, which it starts if needed but never closes. */
    public static Builder builder(CuratorFramework client) {
        return new Builder(null, client);
    }

    @Override
    public long acquire(MachineIdRange range) {
        return acquire(range, 1);
    }

    /**
     * Registers like {@link #acquire(MachineIdRange)}, with a block of {@code blockSize} machine IDs per node: sequence
     * {@code n} holds the range's aligned block {@code n}. A namespace records its block size beside its range start,
     * and a node with another block size is refused there, since the two would map sequences to overlapping IDs.
     */
    @Override
    public synchronized long acquire(MachineIdRange range, int blockSize) {
        MachineIdRange.requireBlockSize("blockSize", blockSize);
        if (lifecycle.isClosed()) {
            throw new IllegalStateException("This ZooKeeperMachineIdProvider was closed; build a new one");
        }
        if (machineId >= 0) {
            throw new IllegalStateException("This ZooKeeperMachineIdProvider already holds machine ID " + machineId
                    + "; build a new one for another generator");
        }
        this.blockSize = blockSize;
        this.range = range;
        if (client.getState() == CuratorFrameworkState.LATENT) {
            client.start();
        }
        Registration registration;
        try {
            if (!client.blockUntilConnected((int) connectionTimeoutMillis, TimeUnit.MILLISECONDS)) {
                registration = fromCache(range, "no connection within " + connectionTimeoutMillis + "ms (connectionTimeout)");
            } else {
                registration = register(range);
            }
        } catch (KeeperException.ConnectionLossException | KeeperException.SessionExpiredException
                | KeeperException.OperationTimeoutException e) {
            registration = fromCache(range, e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new MachineIdUnavailableException("Interrupted while registering with ZooKeeper at " + where(), e);
        } catch (MachineIdUnavailableException | IllegalArgumentException e) {
            throw e;
        } catch (Exception e) {
            throw new MachineIdUnavailableException("Cannot register this node (owner '" + owner + "') under " + foreverPath
                    + " at " + where() + ": " + e, e);
        }
        hold(registration);
        if (!lifecycle.start(new MachineIdBlock(registration.machineId, blockSize), registration.until,
                registration.notBefore, Duration.ofMillis(reportIntervalMillis), this::report)) {
            // close() ran while this node registered, found no ID to give back, and did not wait for us (it
            // takes no monitor): nothing was issued under the registration, so give the node back here.
            String problem = release(timeSource.currentTimeMillis());
            throw new IllegalStateException("This ZooKeeperMachineIdProvider was closed while it registered machine ID "
                    + registration.machineId + " under " + registration.path + (problem == null ? "" : "; " + problem));
        }
        return machineId;
    }

    private void hold(Registration registration) {
        this.nodePath = registration.path;
        this.nodeVersion = registration.version;
        this.lastReported = registration.time;
        this.notBefore = registration.notBefore;
        this.lastUntil = written(registration.until);
        this.takenFrom = registration.takenFrom;
        this.fromCache = registration.fromCache;
        this.machineId = registration.machineId;
        // Cached at once, from ZooKeeper or not: a run that started from the cache issues up to this lease end
        // without ZooKeeper knowing, and a restart on this host must start after it.
        writeCache(false);
    }

    /**
     * The lifecycle's regain after this node lost its machine ID: registers again as acquire does (its own node if it
     * is still there, else a new sequence, else a reclaimed ID), published as a new grant. Only ever from ZooKeeper:
     * the cache names the ID that was just lost.
     */
    private synchronized LeaseLifecycle.Regained regain() throws Exception {
        if (!client.getZookeeperClient().isConnected()) {
            throw new MachineIdUnavailableException("not connected to ZooKeeper at " + where() + "; a lost machine ID is"
                    + " replaced only through ZooKeeper, never from the cache");
        }
        Registration registration = register(range);
        hold(registration);
        return new LeaseLifecycle.Regained(new MachineIdBlock(registration.machineId, blockSize), registration.until,
                registration.notBefore, () -> {
                    // close() began while this node registered and found nothing to give back: nothing was issued.
                    String problem = closingReport(timeSource.currentTimeMillis());
                    LOG.log(Level.INFO, () -> "Closed while registering machine ID " + registration.machineId
                            + " again under " + registration.path + (problem == null ? "" : "; " + problem));
                });
    }

    private Registration register(MachineIdRange range) throws Exception {
        ensureNamespace(range);
        claimLive();
        try {
            return registerLive(range);
        } catch (Exception | Error e) {
            releaseLive(); // refused or failed: the owner is free for the next attempt at once
            throw e;
        }
    }

    private Registration registerLive(MachineIdRange range) throws Exception {
        for (int attempt = 0; attempt < 16; attempt++) {
            // A write's mtime is the ZooKeeper leader's clock: a reference for how long ago others reported
            // that does not depend on this node's clock, which is what is being checked.
            long serverNow = client.setData().forPath(foreverPath, EMPTY).getMtime();
            long now = timeSource.currentTimeMillis();
            List<Node> nodes = readNodes(range);
            Node own = nodes.stream().filter(n -> n.owner.equals(owner) && n.machineId >= 0)
                    .min(Comparator.comparingLong(n -> n.sequence)).orElse(null);
            List<Node> others = nodes.stream().filter(n -> !n.owner.equals(owner)).toList();
            if (own != null) {
                if (now < own.time) {
                    throw new MachineIdUnavailableException("This node's clock reads " + Instant.ofEpochMilli(now) + ", "
                            + (own.time - now) + " ms behind the time it last reported to ZooKeeper, "
                            + Instant.ofEpochMilli(own.time) + " (in " + own.path + "): the clock was set back, and IDs"
                            + " issued before could repeat. Fix the clock, or start once it has passed that time.");
                }
                checkAgainstOthers(now, serverNow, others);
                range.checkBlock("the machine ID recorded in " + own.path, own.machineId, blockSize);
                try {
                    long until = now + leaseMillis;
                    // After a clean close the node wrote the exact time of its last ID; otherwise the previous
                    // run may have issued up to the end of its lease.
                    long mark = Math.max(own.until, cachedUntil(own.path));
                    // Versioned: a report of the previous run between our read and this write moves the version,
                    // and we read again; after this write, that run's next report fails and it stops. It never
                    // issued past the lease end of its last successful report, which is what we read.
                    Stat stat = client.setData().withVersion(own.version).forPath(own.path,
                            encode(own.machineId, now, Math.max(until, mark), false));
                    return new Registration(own.path, stat.getVersion(), own.machineId, now, until, mark, null, false);
                } catch (KeeperException.BadVersionException | KeeperException.NoNodeException e) {
                    continue; // changed under us (a reclaim); look again
                }
            }
            checkAgainstOthers(now, serverNow, others);
            String path = client.create().withMode(CreateMode.PERSISTENT_SEQUENTIAL)
                    .forPath(foreverPath + "/" + owner + "-", encode(-1, now, now, false));
            long sequence = Long.parseLong(path.substring(path.length() - 10));
            if (sequence < range.blocks(blockSize)) {
                long id = range.blockStart(sequence, blockSize);
                long until = now + leaseMillis;
                Stat stat = client.setData().withVersion(0).forPath(path, encode(id, now, until, false));
                return new Registration(path, stat.getVersion(), id, now, until, null, null, false);
            }
            client.delete().forPath(path);
            Registration reclaimed = reclaim(range, nodes, serverNow, now);
            if (reclaimed != null) {
                return reclaimed;
            }
            long held = nodes.stream().filter(n -> n.machineId >= 0 && range.contains(n.machineId)).count();
            long oldest = nodes.stream().filter(n -> n.machineId >= 0).mapToLong(n -> serverNow - n.mtime).max().orElse(0);
            throw new MachineIdUnavailableException("No " + (blockSize == 1 ? "machine ID" : "block of " + blockSize
                    + " machine IDs") + " is free in range " + range + " under " + foreverPath + " at " + where() + ": the"
                    + " node sequence has passed the end of the range" + (blockSize == 1 ? "" : " (" + range.blocks(blockSize)
                    + " blocks of " + blockSize + ")") + ", " + held + " nodes hold " + (blockSize == 1 ? "IDs" : "blocks")
                    + " in it, and none has gone without a report for reclaimAfter (" + reclaimAfterMillis + "ms; the"
                    + " longest silence is " + oldest + "ms). Widen the range, use a new namespace, or lower reclaimAfter.");
        }
        throw new MachineIdUnavailableException("Gave up registering under " + foreverPath + ": the nodes kept changing");
    }

    /**
     * Takes this owner's live node: an ephemeral node that exists while a process holding the owner has a
     * session. Another process's node there means a second live process under one owner (a copied
     * configuration, two containers with one address): refused, after waiting up to a lease for the node to go,
     * which is what happens when that process crashed and its session expires. Safety does not rest on this (the
     * versioned writes and lease ends do), but it turns the misconfiguration into a clear refusal instead of two
     * processes taking the ID from each other.
     */
    private void claimLive() throws Exception {
        byte[] token = process.getBytes(StandardCharsets.UTF_8);
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(leaseMillis);
        for (;;) {
            try {
                client.create().creatingParentsIfNeeded().withMode(CreateMode.EPHEMERAL).forPath(livePath, token);
                return;
            } catch (KeeperException.NodeExistsException e) {
                Stat stat = new Stat();
                byte[] holder;
                try {
                    holder = client.getData().storingStatIn(stat).forPath(livePath);
                } catch (KeeperException.NoNodeException gone) {
                    continue;
                }
                if (Arrays.equals(holder, token)) {
                    return; // our own create, retried by Curator after its answer was lost
                }
                if (System.nanoTime() - deadline >= 0) {
                    throw new MachineIdUnavailableException("Another live process holds owner '" + owner + "' in namespace '"
                            + namespace + "' (its live node " + livePath + " belongs to ZooKeeper session 0x"
                            + Long.toHexString(stat.getEphemeralOwner()) + "), and it did not go within " + leaseMillis
                            + "ms (lease). Two processes under one owner would share a machine ID: give each process an owner"
                            + " of its own (vesta.machine-id.zookeeper.owner, by default host name, address and port).");
                }
                Thread.sleep(Math.min(200, Math.max(10, reportIntervalMillis)));
            }
        }
    }

    /** After a session expired and Curator reconnected, the ephemeral node is gone: take it again. */
    private void ensureLive() {
        try {
            if (client.checkExists().forPath(livePath) == null) {
                client.create().creatingParentsIfNeeded().withMode(CreateMode.EPHEMERAL)
                        .forPath(livePath, process.getBytes(StandardCharsets.UTF_8));
            }
        } catch (KeeperException.NodeExistsException e) {
            // Another process under our owner: the versioned writes decide who holds the ID.
        } catch (Exception e) {
            LOG.log(Level.DEBUG, () -> "Cannot check the live node " + livePath + ": " + e);
        }
    }

    private void releaseLive() {
        try {
            byte[] holder = client.getData().forPath(livePath);
            if (Arrays.equals(holder, process.getBytes(StandardCharsets.UTF_8))) {
                client.delete().forPath(livePath);
            }
        } catch (Exception e) {
            // gone already, or unreachable: it goes with the session
        }
    }

    /** The lease end cached for {@code path} on this host, or Long.MIN_VALUE. */
    private long cachedUntil(String path) {
        try {
            Properties cached = cache.read();
            if (path.equals(cached.getProperty("path")) && owner.equals(cached.getProperty("owner"))) {
                return untilOf(cached);
            }
        } catch (IOException | RuntimeException e) {
            // no cache, or an unreadable one: ZooKeeper's record stands
        }
        return Long.MIN_VALUE;
    }

    /**
     * Records the range's start in the namespace node: machine IDs are sequence + range start, so two ranges
     * with different starts in one namespace could map two sequences to one ID.
     */
    private void ensureNamespace(MachineIdRange range) throws Exception {
        // A namespace of single IDs records only the range start, as before blocks existed, so that it stays readable
        // by, and compatible with, nodes of those versions.
        byte[] mine = ("rangeStart=" + range.min() + "\n" + (blockSize == 1 ? "" : "blockSize=" + blockSize + "\n"))
                .getBytes(StandardCharsets.UTF_8);
        try {
            client.create().creatingParentsIfNeeded().forPath(namespacePath, mine);
        } catch (KeeperException.NodeExistsException e) {
            byte[] recorded = client.getData().forPath(namespacePath);
            if (recorded.length == 0) {
                client.setData().withVersion(0).forPath(namespacePath, mine);
            } else if (!Arrays.equals(recorded, mine)) {
                throw new IllegalArgumentException("namespace '" + namespace + "' assigns machine IDs as "
                        + new String(recorded, StandardCharsets.UTF_8).strip().replace('\n', ' ') + " (recorded in "
                        + namespacePath + "), but this node's range is " + range + " with block size " + blockSize
                        + "; give each range and block size a namespace of its own");
            }
        }
        try {
            client.create().forPath(foreverPath, EMPTY);
        } catch (KeeperException.NodeExistsException e) {
            // created by another node
        }
    }

    private List<Node> readNodes(MachineIdRange range) throws Exception {
        List<Node> nodes = new ArrayList<>();
        for (String child : client.getChildren().forPath(foreverPath)) {
            int dash = child.lastIndexOf('-');
            if (dash < 1 || !SEQUENCE.matcher(child.substring(dash + 1)).matches()) {
                continue; // not one of ours
            }
            String path = foreverPath + "/" + child;
            Stat stat = new Stat();
            byte[] data;
            try {
                data = client.getData().storingStatIn(stat).forPath(path);
            } catch (KeeperException.NoNodeException e) {
                continue; // reclaimed meanwhile
            }
            Properties fields = decode(data);
            long sequence = Long.parseLong(child.substring(dash + 1));
            long recorded = Long.parseLong(fields.getProperty("machineId", "-1"));
            // A node created a moment ago has no ID written yet; its sequence says which it is getting.
            long id = recorded >= 0 ? recorded : sequence < range.blocks(blockSize) ? range.blockStart(sequence, blockSize) : -1;
            nodes.add(new Node(path, child.substring(0, dash), sequence, id, Long.parseLong(fields.getProperty("time", "0")),
                    untilOf(fields),
                    Boolean.parseBoolean(fields.getProperty("closed")), stat.getVersion(), stat.getMtime(),
                    Boolean.parseBoolean(fields.getProperty("released")), data));
        }
        return nodes;
    }

    private void checkAgainstOthers(long now, long serverNow, List<Node> others) {
        long window = LIVE_INTERVALS * reportIntervalMillis;
        List<Node> live = others.stream()
                .filter(n -> !n.closed && n.time > 0 && serverNow - n.mtime <= window).toList();
        if (live.isEmpty()) {
            return;
        }
        // Each report is moved on by how long ago ZooKeeper received it, so a report interval does not
        // count as a clock difference.
        double sum = 0;
        for (Node node : live) {
            sum += node.time + (serverNow - node.mtime);
        }
        long average = Math.round(sum / live.size());
        long difference = now - average;
        if (Math.abs(difference) > maxClockDifferenceMillis) {
            throw new MachineIdUnavailableException("This node's clock reads " + Instant.ofEpochMilli(now) + ", "
                    + Math.abs(difference) + " ms " + (difference < 0 ? "behind" : "ahead of") + " the average of the "
                    + live.size() + " other live nodes under " + foreverPath + " (" + Instant.ofEpochMilli(average)
                    + "); at most " + maxClockDifferenceMillis + " ms (maxClockDifference) is allowed. Fix this host's"
                    + " clock (NTP) and start again.");
        }
    }

    /*
     * Taking over a stale node is one ZooKeeper transaction: delete the stale node at the version we read,
     * and create ours carrying its machine ID. If the stale node reported (or someone else reclaimed it) in
     * between, its version moved or it is gone, and the whole transaction fails: an ID passes to exactly one
     * new owner. The old owner's next report then finds its node gone and stops it for good.
     */
    private Registration reclaim(MachineIdRange range, List<Node> nodes, long serverNow, long now) throws Exception {
        List<Node> stale = nodes.stream()
                .filter(n -> n.machineId >= 0 && range.contains(n.machineId) && !n.owner.equals(owner)
                        && (n.released || serverNow - n.mtime > reclaimAfterMillis))
                .sorted(Comparator.comparingLong(n -> n.machineId)).toList();
        for (Node node : stale) {
            try {
                List<CuratorTransactionResult> results = client.transaction().forOperations(
                        client.transactionOp().delete().withVersion(node.version).forPath(node.path),
                        client.transactionOp().create().withMode(CreateMode.PERSISTENT_SEQUENTIAL)
                                .forPath(foreverPath + "/" + owner + "-", encode(node.machineId, now,
                                        Math.max(now + leaseMillis, node.until), false)));
                String path = results.get(1).getResultPath();
                // The old owner may have issued until the lease end of its last report, by its own clock.
                long mark = node.until;
                LOG.log(Level.WARNING, () -> "Reclaimed machine ID " + node.machineId + " from " + node.path + " (owner '"
                        + node.owner + "', " + (node.released ? "released by an operator" : "silent for " + (serverNow - node.mtime)
                        + "ms") + "); IDs start after " + Instant.ofEpochMilli(mark));
                return new Registration(path, 0, node.machineId, now, now + leaseMillis, mark, node.owner, false);
            } catch (KeeperException.BadVersionException | KeeperException.NoNodeException e) {
                // it reported after all, or another node was faster: try the next
            }
        }
        return null;
    }

    private Registration fromCache(MachineIdRange range, String why) {
        Path cacheFile = cache.file();
        Properties cached;
        try {
            cached = cache.read();
        } catch (NoSuchFileException e) {
            throw new MachineIdUnavailableException("Cannot reach ZooKeeper at " + where() + " (" + why + ") and no"
                    + " machine ID is cached in " + cacheFile + ": a node's first start needs ZooKeeper");
        } catch (IOException e) {
            throw new MachineIdUnavailableException("Cannot reach ZooKeeper at " + where() + " (" + why + ") nor read"
                    + " the cached machine ID in " + cacheFile + ": " + e, e);
        }
        if (!owner.equals(cached.getProperty("owner")) || !namespace.equals(cached.getProperty("namespace"))) {
            throw new MachineIdUnavailableException("Cannot reach ZooKeeper at " + where() + " (" + why + "), and the"
                    + " machine ID cached in " + cacheFile + " belongs to owner '" + cached.getProperty("owner")
                    + "' in namespace '" + cached.getProperty("namespace") + "', not to '" + owner + "' in '" + namespace + "'");
        }
        long id;
        int cachedBlockSize;
        long time;
        long cachedUntil;
        try {
            id = Long.parseLong(cached.getProperty("machineId"));
            // A record of a version before blocks has no block size: it held a single ID.
            cachedBlockSize = Integer.parseInt(cached.getProperty("blockSize", "1"));
            time = Long.parseLong(cached.getProperty("time"));
            cachedUntil = untilOf(cached);
        } catch (NumberFormatException e) {
            throw new MachineIdUnavailableException("Cannot reach ZooKeeper at " + where() + " (" + why + "), and "
                    + cacheFile + " does not hold a machine ID and a time: " + cached, e);
        }
        if (cached.getProperty("path") == null) {
            throw new MachineIdUnavailableException("Cannot reach ZooKeeper at " + where() + " (" + why + "), and "
                    + cacheFile + " does not name the node to confirm the ID with: " + cached);
        }
        if (cachedBlockSize != blockSize) {
            throw new MachineIdUnavailableException("Cannot reach ZooKeeper at " + where() + " (" + why + "), and the"
                    + " machine ID " + id + " cached in " + cacheFile + " starts a block of " + cachedBlockSize + ", not of "
                    + blockSize + " (the block size now configured): a block of another size could overlap other nodes'."
                    + " Start with the block size of the cached run, or once ZooKeeper is reachable.");
        }
        range.checkBlock("the machine ID cached in " + cacheFile, id, blockSize);
        long now = timeSource.currentTimeMillis();
        if (now < time) {
            throw new MachineIdUnavailableException("This node's clock reads " + Instant.ofEpochMilli(now) + ", "
                    + (time - now) + " ms behind the time it last reported, " + Instant.ofEpochMilli(time) + " (cached in "
                    + cacheFile + "): the clock was set back, and IDs issued before could repeat. Fix the clock, or"
                    + " start once it has passed that time.");
        }
        if (now >= time + holdMillis) {
            throw new MachineIdUnavailableException("Cannot reach ZooKeeper at " + where() + " (" + why + "), and the"
                    + " machine ID " + id + " cached in " + cacheFile + " was last confirmed at " + Instant.ofEpochMilli(time)
                    + ", more than half of reclaimAfter (" + holdMillis + "ms) ago: another node may have reclaimed it");
        }
        LOG.log(Level.WARNING, () -> "Cannot reach ZooKeeper at " + where() + " (" + why + "); using machine ID " + id
                + " cached in " + cacheFile + ", last confirmed at " + Instant.ofEpochMilli(time) + ", as Leaf does. IDs"
                + " are issued for up to " + leaseMillis + "ms (lease) unless ZooKeeper confirms the ID first.");
        // The previous run may have issued up to the lease end it last reported (cached with each report).
        return new Registration(cached.getProperty("path"), -1, id, time, now + leaseMillis, cachedUntil, null, true);
    }

    /**
     * Writes the current time into this node's ZooKeeper node once: what the reporter does every interval.
     * Returns whether the lease is held afterwards.
     */
    synchronized boolean report() {
        if (!lifecycle.isRenewing()) {
            return false;
        }
        long now = timeSource.currentTimeMillis();
        try {
            if (fromCache) {
                Stat stat = new Stat();
                Properties fields = decode(client.getData().storingStatIn(stat).forPath(nodePath));
                if (Long.parseLong(fields.getProperty("machineId", "-1")) != machineId) {
                    lifecycle.lose(nodePath + " now records machine ID " + fields.getProperty("machineId") + ": " + fields);
                    return false;
                }
                nodeVersion = stat.getVersion();
                fromCache = false;
                LOG.log(Level.INFO, () -> "ZooKeeper at " + where() + " confirmed the cached machine ID " + machineId);
            }
            if (now <= lastReported) {
                // As Leaf: never write a time behind one already written; the lease stands on the last report.
                return lifecycle.lease().isHeldAt(now);
            }
            long until = now + leaseMillis;
            byte[] data = encode(machineId, now, written(until), false);
            Stat stat;
            try {
                stat = client.setData().withVersion(nodeVersion).forPath(nodePath, data);
            } catch (KeeperException.BadVersionException e) {
                // Our own write may have gone through with its answer lost (Curator then retries it); only our
                // process writes these exact bytes.
                stat = new Stat();
                byte[] current = client.getData().storingStatIn(stat).forPath(nodePath);
                if (!Arrays.equals(current, data)) {
                    lifecycle.lose(Boolean.parseBoolean(decode(current).getProperty("released"))
                            ? "its lease on " + nodePath + " was ended by an operator (DELETE /vesta/admin/leases): another"
                                    + " node may take machine ID " + machineId + " now, after this node's last lease end"
                            : nodePath + " was rewritten by another process (" + decode(current) + ")");
                    return false;
                }
            }
            // Kept even when close() began meanwhile: its closing report writes at this version, after this one.
            nodeVersion = stat.getVersion();
            lastReported = now;
            lastUntil = written(until);
            if (!lifecycle.renewTo(until, () -> "Reporting to ZooKeeper at " + where() + " works again")) {
                return false;
            }
            writeCache(false);
            ensureLive();
            return true;
        } catch (KeeperException.NoNodeException e) {
            lifecycle.lose(nodePath + " was deleted: another node reclaimed machine ID " + machineId + " after it went without"
                    + " a report for reclaimAfter (" + reclaimAfterMillis + "ms), or it was removed by hand");
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return lifecycle.lease().isHeldAt(now);
        } catch (Exception e) {
            return lifecycle.renewalFailed(now, "Cannot report to ZooKeeper at " + where() + ": " + e);
        }
    }

    /**
     * Stops reporting and writes the exact time of the last ID with a closed mark, so a prompt restart need not
     * wait; the node stays, so the owner gets the same ID back. Closes the Curator client if it is the
     * provider's own. Call after the last ID.
     *
     * <p>Returns within {@link #closeTimeout()} whatever ZooKeeper does: the closing report waits for a report in
     * flight (which close() interrupts), and is skipped without a connection, so that a shutdown never waits out
     * Curator's retries against a dead ensemble. Without the closing mark a restart merely waits for the lease
     * end of the last report.
     */
    @Override
    public void close() {
        if (lifecycle.close(closeTimeout(), this::release, () -> "a restart under owner '" + owner + "' starts after the lease"
                + " end of the last report, " + Instant.ofEpochMilli(lastUntil)) && ownsClient) {
            client.close();
        }
    }

    /**
     * The lease end this node writes for {@code until}: never before the one it took the ID over with ({@link
     * #notBefore()}), up to which the former holder may issue (a whole lease ahead after an operator's end, more when
     * its clock runs ahead), so that whoever takes the ID from this node starts after that too.
     */
    private long written(long until) {
        Long inherited = notBefore;
        return inherited == null ? until : Math.max(inherited, until);
    }

    /** The closing report: null when written (or there was nothing to write), else why it was not. */
    private synchronized String release(long now) {
        if (lifecycle.isLost() || machineId < 0) {
            return null;
        }
        return closingReport(now);
    }

    private synchronized String closingReport(long now) {
        // IDs carry clock readings before now (the lease was revoked before it was read) and never past the last
        // report's lease end, so the lease ends a millisecond after the later of now and the last report.
        long time = Math.max(now, lastReported);
        if (fromCache || !client.getZookeeperClient().isConnected()) {
            return null;
        }
        String problem = null;
        try {
            long until = written(time + 1);
            client.setData().withVersion(nodeVersion).forPath(nodePath, encode(machineId, time, until, true));
            lastUntil = until;
            lastReported = time;
            writeCache(true);
        } catch (Exception e) {
            problem = "cannot write the closing report to " + nodePath + ": " + e;
        }
        releaseLive();
        return problem;
    }

    /** The longest {@link #close()} takes: four connection timeouts and a second. */
    public Duration closeTimeout() {
        return Duration.ofMillis(connectionTimeoutMillis * 4 + 1000);
    }

    private void writeCache(boolean wasClosed) {
        try {
            cache.write(new MachineIdCacheFile.Entry(owner, namespace, nodePath, machineId, blockSize, lastReported, lastUntil,
                    wasClosed));
        } catch (IOException e) {
            LOG.log(Level.WARNING, "Cannot cache the machine ID in " + cache.file() + ": " + e);
        }
    }

    /**
     * What a node's (or the cache's) fields say its holder may have issued up to: IDs before {@code until}. A
     * record written before leases were recorded has none: after a clean close its IDs end with its time, else
     * its holder could issue for half of reclaimAfter after its report.
     */
    private long untilOf(Properties fields) {
        String until = fields.getProperty("until");
        if (until != null) {
            return Long.parseLong(until);
        }
        long time = Long.parseLong(fields.getProperty("time", "0"));
        return Boolean.parseBoolean(fields.getProperty("closed")) ? time + 1 : time + holdMillis;
    }

    private byte[] encode(long id, long time, long until, boolean wasClosed) {
        String text = (id >= 0 ? "machineId=" + id + "\n" : "") + "time=" + time + "\nuntil=" + until + "\nprocess="
                + process + "\n" + (wasClosed ? "closed=true\n" : "");
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static Properties decode(byte[] data) {
        Properties fields = new Properties();
        try {
            fields.load(new StringReader(new String(data == null ? EMPTY : data, StandardCharsets.UTF_8)));
        } catch (IOException e) {
            throw new IllegalStateException(e); // a StringReader does not fail
        }
        return fields;
    }

    private static String fileName(String owner) {
        return owner.replaceAll("[^A-Za-z0-9._-]", "_");
    }

    private String where() {
        return connectString != null ? connectString : "the application's Curator client";
    }

    @Override
    public MachineIdLease lease() {
        return lifecycle.lease();
    }

    /** The machine ID held now; a new grant after this node lost its node and registered again by itself. */
    @Override
    public Optional<MachineIdGrant> grant() {
        return lifecycle.grant();
    }

    @Override
    public void onRegain(Runnable listener) {
        lifecycle.onRegain(listener);
    }

    /**
     * The namespace's nodes, for an operator ({@link ZooKeeperMachineIdLeases}); usable once this provider has
     * acquired its machine ID, whose range and block size it lists by.
     */
    @Override
    public Optional<MachineIdLeases> leases() {
        return Optional.of(new ZooKeeperMachineIdLeases());
    }

    @Override
    public OptionalLong notBefore() {
        Long mark = notBefore;
        return mark == null ? OptionalLong.empty() : OptionalLong.of(mark);
    }

    @Override
    public String describe() {
        String from = takenFrom;
        return "zookeeper (" + nodePath + (fromCache ? ", from the cache " + cache.file() + " until ZooKeeper confirms it" : "")
                + (from != null ? ", reclaimed from '" + from + "'" : "") + ")";
    }

    public String owner() {
        return owner;
    }

    /** How long the node issues after its last successful report. */
    public Duration leaseDuration() {
        return Duration.ofMillis(leaseMillis);
    }

    public String namespace() {
        return namespace;
    }

    public Path cacheFile() {
        return cache.file();
    }

    /** The ZooKeeper node of this owner, once acquired. */
    public String nodePath() {
        return nodePath;
    }

    CuratorFramework client() {
        return client;
    }

    @Override
    public String toString() {
        return "ZooKeeperMachineIdProvider[" + describe() + "]";
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

    /**
     * The nodes of the namespace by machine ID. A node is live while its owner's ephemeral live node exists or its
     * last report's lease has not ended. Ending a lease is a write conditional on the node's version that adds
     * {@code released=true} and keeps everything else, {@code until} included: the holder's next report then fails and
     * it stops for good, and another node may reclaim the ID at once (rather than after reclaimAfter), starting after
     * that {@code until}, past every ID the holder could have issued.
     */
    private final class ZooKeeperMachineIdLeases implements MachineIdLeases {

        @Override
        public String describe() {
            return "zookeeper " + foreverPath;
        }

        @Override
        public List<MachineIdLeaseInfo> list(MachineIdRange range) {
            try {
                long now = timeSource.currentTimeMillis();
                List<MachineIdLeaseInfo> leases = new ArrayList<>();
                List<Node> nodes = readNodes(registeredRange());
                for (long id = range.min(); id <= range.max(); id++) {
                    Node node = holderOf(nodes, id);
                    leases.add(node == null ? MachineIdLeaseInfo.free(id) : info(node, id, now));
                }
                return leases;
            } catch (Exception e) {
                throw new MachineIdUnavailableException("Cannot read the nodes under " + foreverPath + " at " + where()
                        + ": " + e, e);
            }
        }

        @Override
        public Released release(long machineId, boolean force) {
            Node node;
            MachineIdLeaseInfo before;
            try {
                long now = timeSource.currentTimeMillis();
                node = holderOf(readNodes(registeredRange()), machineId);
                if (node == null) {
                    throw new IllegalArgumentException("No node under " + foreverPath + " holds machine ID " + machineId
                            + ": it was never assigned");
                }
                before = info(node, machineId, now);
                if (before.self()) {
                    throw new LeaseChangeRefusedException(machineId, "own", "Machine ID " + machineId + " is held by this"
                            + " process (owner '" + owner + "'); stop it to release the ID");
                }
                if (node.released) {
                    return new Released(before, before, false, "The lease of owner '" + node.owner + "' on machine ID "
                            + machineId + " was ended already; another node may reclaim it (after " + before.highWater() + ")");
                }
                if (before.live() && !force) {
                    throw new LeaseChangeRefusedException(machineId, "live", "The lease of owner '" + node.owner
                            + "' on machine ID " + machineId + " is live (its live node exists, or its lease runs until "
                            + before.leaseExpiry() + "): its holder may be running. Stop it, or force the release if its"
                            + " process is gone");
                }
                byte[] released = (new String(node.data, StandardCharsets.UTF_8) + "released=true\n")
                        .getBytes(StandardCharsets.UTF_8);
                client.setData().withVersion(node.version).forPath(node.path, released);
                MachineIdLeaseInfo after = info(holderOf(readNodes(registeredRange()), machineId), machineId, now);
                LOG.log(Level.WARNING, () -> "Ended the lease of owner '" + node.owner + "' on machine ID " + machineId
                        + " (" + node.path + ")" + (before.live() ? " by force" : "") + "; the next holder starts after "
                        + before.highWater());
                return new Released(before, after, true, "Ended the lease of owner '" + node.owner + "' on machine ID "
                        + machineId + (blockSize > 1 ? " and the rest of its block" : "") + "; another node may reclaim it"
                        + " at once, starting after " + before.highWater() + (before.live()
                                ? ", and its holder stops issuing at its next report" : ""));
            } catch (KeeperException.BadVersionException | KeeperException.NoNodeException e) {
                throw new LeaseChangeRefusedException(machineId, "changed", "The node of machine ID " + machineId
                        + " changed while its lease was being ended (its holder reported, or it was reclaimed); read the"
                        + " leases again");
            } catch (IllegalArgumentException | LeaseChangeRefusedException e) {
                throw e;
            } catch (Exception e) {
                throw new MachineIdUnavailableException("Cannot end the lease on machine ID " + machineId + " under "
                        + foreverPath + " at " + where() + ": " + e, e);
            }
        }

        private MachineIdRange registeredRange() {
            MachineIdRange registered = range;
            if (registered == null) {
                throw new IllegalStateException("This ZooKeeperMachineIdProvider has not acquired a machine ID yet");
            }
            return registered;
        }

        /** The node whose block holds {@code id}: the one with the lowest sequence, as a registration picks it. */
        private Node holderOf(List<Node> nodes, long id) {
            return nodes.stream().filter(n -> n.machineId >= 0 && id >= n.machineId && id < n.machineId + blockSize)
                    .min(Comparator.comparingLong(Node::sequence)).orElse(null);
        }

        private MachineIdLeaseInfo info(Node node, long id, long now) throws Exception {
            boolean liveNode = client.checkExists().forPath(namespacePath + "/live/" + node.owner) != null;
            boolean live = !node.released && (liveNode || node.until > now);
            boolean self = node.path.equals(nodePath) && !lifecycle.isClosed() && !lifecycle.isLost();
            return new MachineIdLeaseInfo(id, live ? MachineIdLeaseInfo.State.LIVE : MachineIdLeaseInfo.State.EXPIRED,
                    node.owner, Instant.ofEpochMilli(node.until), Instant.ofEpochMilli(node.until), node.version, self);
        }
    }

    private record Node(String path, String owner, long sequence, long machineId, long time, long until, boolean closed,
            int version, long mtime, boolean released, byte[] data) {
    }

    /** {@code until}: the lease end written with the registration, up to which this node may issue. */
    private record Registration(String path, int version, long machineId, long time, long until, Long notBefore,
            String takenFrom, boolean fromCache) {
    }

    /** Settings of a {@link ZooKeeperMachineIdProvider}; every setting is checked in {@link #build()}. */
    public static final class Builder {

        private final String connectString;
        private final CuratorFramework client;
        private String namespace = DEFAULT_NAMESPACE;
        private String owner;
        private Duration reportInterval = DEFAULT_REPORT_INTERVAL;
        private Duration maxClockDifference = DEFAULT_MAX_CLOCK_DIFFERENCE;
        private Duration reclaimAfter = DEFAULT_RECLAIM_AFTER;
        private Duration connectionTimeout = DEFAULT_CONNECTION_TIMEOUT;
        private Duration lease;
        private Path cacheFile;
        private TimeSource timeSource = TimeSource.system();
        private String settingPrefix = "";

        private Builder(String connectString, CuratorFramework client) {
            this.connectString = connectString;
            this.client = client;
        }

        /** The part of {@code /vesta/{namespace}/forever} that separates ID spaces; {@value #DEFAULT_NAMESPACE} by default. */
        public Builder namespace(String namespace) {
            this.namespace = namespace;
            return this;
        }

        /** Who this node is, stable across its restarts ({@code ip:port}); {@link #defaultOwner()} by default. */
        public Builder owner(String owner) {
            this.owner = owner;
            return this;
        }

        /** How often the node writes its time into its ZooKeeper node; 3 s by default. */
        public Builder reportInterval(Duration reportInterval) {
            this.reportInterval = reportInterval;
            return this;
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
         * that is shorter), at least 3 report intervals and at most half of reclaimAfter. A node cut off from ZooKeeper for longer stops issuing, and a process
         * restarted under the same owner after a crash starts after the crashed run's lease end.
         */
        public Builder lease(Duration lease) {
            this.lease = lease;
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

        public Builder timeSource(TimeSource timeSource) {
            this.timeSource = timeSource;
            return this;
        }

        /**
         * Put before each setting's kebab-case name in the {@link InvalidSettingException} of {@link #build()}, e.g.
         * {@code "vesta.machine-id.zookeeper."} gives {@code "vesta.machine-id.zookeeper.reclaim-after"}.
         */
        public Builder settingPrefix(String settingPrefix) {
            this.settingPrefix = settingPrefix == null ? "" : settingPrefix;
            return this;
        }

        /**
         * The provider, once every setting is checked.
         * @throws InvalidSettingException naming the first setting that cannot be used
         */
        public ZooKeeperMachineIdProvider build() {
            if (client == null && (connectString == null || connectString.isBlank())) {
                throw new InvalidSettingException(settingPrefix + "connect-string", connectString,
                        "a ZooKeeper connect string such as 127.0.0.1:2181", connectString == null ? "is required" : "is blank");
            }
            InvalidSettingException.requireSet(settingPrefix + "time-source", timeSource, "an io.vesta.time.TimeSource");
            if (namespace == null || !NAMESPACE.matcher(namespace).matches() || namespace.equals(".") || namespace.equals("..")) {
                throw new InvalidSettingException(settingPrefix + "namespace", namespace,
                        "1 to 100 letters, digits, '_', '-' or '.', other than '.' and '..'", namespace == null ? "is required" : "is not allowed");
            }
            if (owner == null) {
                owner = defaultOwner();
            }
            LeaseLifecycle.requireOwner(settingPrefix + "owner", owner, MAX_OWNER_LENGTH);
            if (!OWNER.matcher(owner).matches()) {
                throw new InvalidSettingException(settingPrefix + "owner", owner, "1 to " + MAX_OWNER_LENGTH
                        + " characters without '/', white space or control characters", "is not allowed");
            }
            String reportIntervalSetting = settingPrefix + "report-interval";
            String reclaimAfterSetting = settingPrefix + "reclaim-after";
            LeaseLifecycle.requireInRange(reportIntervalSetting, reportInterval, MIN_REPORT_INTERVAL, MAX_REPORT_INTERVAL, "");
            LeaseLifecycle.requireInRange(settingPrefix + "max-clock-difference", maxClockDifference, Duration.ofMillis(1),
                    MAX_CLOCK_DIFFERENCE_LIMIT, "");
            LeaseLifecycle.requireInRange(reclaimAfterSetting, reclaimAfter, reportInterval.multipliedBy(10), MAX_RECLAIM_AFTER,
                    " (at least 10 times " + reportIntervalSetting + ")");
            LeaseLifecycle.requireInRange(settingPrefix + "connection-timeout", connectionTimeout, MIN_CONNECTION_TIMEOUT,
                    MAX_CONNECTION_TIMEOUT, "");
            Duration half = reclaimAfter.dividedBy(2);
            if (lease == null) {
                lease = DEFAULT_LEASE.compareTo(half) <= 0 ? DEFAULT_LEASE : half;
            }
            LeaseLifecycle.requireInRange(settingPrefix + "lease", lease,
                    reportInterval.multipliedBy(LeaseLifecycle.RENEWALS_PER_LEASE), half, " (at least "
                    + LeaseLifecycle.RENEWALS_PER_LEASE + " times " + reportIntervalSetting + ", at most half of "
                    + reclaimAfterSetting + ")");
            return new ZooKeeperMachineIdProvider(this);
        }
    }
}
