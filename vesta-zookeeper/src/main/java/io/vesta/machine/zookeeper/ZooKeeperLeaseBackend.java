package io.vesta.machine.zookeeper;

import io.vesta.machine.LeaseBackend;
import io.vesta.machine.LeaseClaim;
import io.vesta.machine.LeaseSettings;
import io.vesta.machine.MachineIdBlock;
import io.vesta.machine.MachineIdLeases;
import io.vesta.machine.MachineIdRange;
import io.vesta.machine.MachineIdUnavailableException;
import io.vesta.time.TimeSource;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.imps.CuratorFrameworkState;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;

import java.lang.System.Logger.Level;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.function.LongPredicate;

/**
 * The ZooKeeper store of a {@link ZooKeeperMachineIdProvider}: the owners' nodes and their versioned writes. Every
 * write to a node is conditional on the version this process read or wrote last, its fence; why that keeps two
 * processes from issuing under one ID is told in docs/machine-ids.md ("ZooKeeper").
 */
final class ZooKeeperLeaseBackend implements LeaseBackend<ZooKeeperLeaseBackend.NodeVersion> {

    /**
     * Other nodes count as live for the start-up clock check while ZooKeeper saw a report from them within this many
     * report intervals. Each report is moved on by the time ZooKeeper has seen pass since, so an older one is still a
     * fair sample of that node's clock; the window only keeps long-dead nodes out.
     */
    private static final int LIVE_INTERVALS = 10;

    /** The fence: this owner's node and its version read or written last; -1 while the ID is the cache's, unconfirmed. */
    record NodeVersion(String path, int version) {

        boolean fromCache() {
            return version < 0;
        }
    }

    final CuratorFramework client;
    final String namespace;
    final String owner;
    final String namespacePath;
    final String foreverPath;
    final String where;
    final TimeSource timeSource;
    final System.Logger log;
    /** How old a cached ID may be and still be used, and a legacy record's lease: half of reclaimAfter. */
    final long holdMillis;
    final long leaseMillis;
    final long reclaimAfterMillis;
    /** Marks this process's writes, to tell a write of ours whose answer was lost from someone else's. */
    final String process = Long.toHexString(new SecureRandom().nextLong());
    final CachedMachineId cache;
    /** The node of this owner, once acquired. */
    volatile String nodePath;
    private final boolean ownsClient;
    private final long reportMillis;
    private final long maxClockDifferenceMillis;
    private final long connectionTimeoutMillis;
    private final LiveOwnerNode live;
    private final StaleNodes stale = new StaleNodes(this);
    /** Under the provider's store lock: the latest time written or tried; as Leaf, none is written behind it. */
    private long lastTime;

    ZooKeeperLeaseBackend(ZooKeeperMachineIdProvider.Builder builder, LeaseSettings settings, System.Logger log) {
        this.namespace = builder.namespace;
        this.owner = settings.owner();
        this.timeSource = settings.timeSource();
        this.log = log;
        this.ownsClient = builder.client == null;
        this.where = ownsClient ? builder.connectString : "the application's Curator client";
        this.leaseMillis = settings.lease().toMillis();
        this.reportMillis = settings.renewal().toMillis();
        this.reclaimAfterMillis = builder.reclaimAfter.toMillis();
        this.holdMillis = reclaimAfterMillis / 2;
        this.maxClockDifferenceMillis = builder.maxClockDifference.toMillis();
        this.connectionTimeoutMillis = builder.connectionTimeout.toMillis();
        this.namespacePath = "/vesta/" + namespace;
        this.foreverPath = namespacePath + "/forever";
        this.client = !ownsClient ? builder.client : CuratorFrameworkFactory.builder()
                .connectString(builder.connectString)
                .connectionTimeoutMs((int) connectionTimeoutMillis)
                // A crashed process's live node goes when its session expires: within a lease, so that a restart
                // under the same owner waits no longer for it than it waits for the crashed run's lease anyway.
                .sessionTimeoutMs((int) Math.min(Integer.MAX_VALUE, leaseMillis))
                .retryPolicy(new ExponentialBackoffRetry(100, 3))
                .build();
        this.live = new LiveOwnerNode(client, namespace, owner, process);
        this.cache = new CachedMachineId(this, builder.cacheFile != null ? builder.cacheFile : Path.of(
                System.getProperty("java.io.tmpdir"), "vesta", namespace, owner.replaceAll("[^A-Za-z0-9._-]", "_")
                + ".machine-id"));
    }

    @Override
    public String store() {
        return "ZooKeeper " + foreverPath + " at " + where;
    }

    @Override
    public String scope() {
        return namespace;
    }

    @Override
    public String renewalName() {
        return "report";
    }

    @Override
    public String describe(LeaseClaim<NodeVersion> held) {
        return "zookeeper (" + (held == null ? nodePath : held.fence().path())
                + (held != null && held.fence().fromCache() ? ", from the cache " + cache.file()
                        + " until ZooKeeper confirms it" : "")
                + (held != null && held.takenFrom() != null ? ", reclaimed from '" + held.takenFrom() + "'" : "") + ")";
    }

    /**
     * Registers: this owner's node if it has one (a restart gets the same ID), else a new sequence, else a reclaimed
     * ID; at start-up, the cached ID when ZooKeeper cannot be reached. After a loss only ever from ZooKeeper: the cache
     * names the ID that was just lost.
     */
    @Override
    public LeaseClaim<NodeVersion> claim(MachineIdRange range, int blockSize, boolean startUp) throws Exception {
        LeaseClaim<NodeVersion> claim;
        if (!startUp) {
            if (!client.getZookeeperClient().isConnected()) {
                throw new MachineIdUnavailableException("not connected to ZooKeeper at " + where + "; a lost machine ID"
                        + " is replaced only through ZooKeeper, never from the cache");
            }
            claim = register(range, blockSize);
        } else {
            start();
            try {
                claim = client.blockUntilConnected((int) connectionTimeoutMillis, TimeUnit.MILLISECONDS)
                        ? register(range, blockSize)
                        : fromCache(range, blockSize, "no connection within " + connectionTimeoutMillis
                                + "ms (connectionTimeout)");
            } catch (KeeperException.ConnectionLossException | KeeperException.SessionExpiredException
                    | KeeperException.OperationTimeoutException e) {
                claim = fromCache(range, blockSize, e.getMessage());
            }
        }
        nodePath = claim.fence().path();
        // Cached at once, from ZooKeeper or not: a run that started from the cache issues up to this lease end
        // without ZooKeeper knowing, and a restart on this host must start after it.
        cache.write(nodePath, claim.block().first(), blockSize, lastTime, claim.highWater(claim.expiry()), false);
        return claim;
    }

    private LeaseClaim<NodeVersion> fromCache(MachineIdRange range, int blockSize, String why) {
        long now = timeSource.currentTimeMillis();
        CachedMachineId.Entry cached = cache.startFrom(range, blockSize, why, now);
        lastTime = cached.time();
        return new LeaseClaim<>(new MachineIdBlock(cached.machineId(), blockSize), now + leaseMillis, cached.until(),
                null, new NodeVersion(cached.path(), -1));
    }

    private LeaseClaim<NodeVersion> register(MachineIdRange range, int blockSize) throws Exception {
        ZooKeeperNode.Layout layout = ZooKeeperNode.ensureLayout(client, namespace, namespacePath, foreverPath, range,
                blockSize);
        if (layout.order() != range.order()) {
            log.log(Level.WARNING, () -> "Namespace '" + namespace + "' was first used before ranges had an order and"
                    + " hands machine IDs out from its range start " + layout.anchor() + " up; this node's range " + range
                    + " is " + ZooKeeperNode.Layout.describe(range.order()) + ", and follows the namespace."
                    + " A new namespace records this node's order (docs/machine-ids.md, \"Moving the range boundary\")");
        }
        live.claim(leaseMillis, reportMillis);
        try {
            return registerLive(layout, range, blockSize);
        } catch (Exception | Error e) {
            live.release(); // refused or failed: the owner is free for the next attempt at once
            throw e;
        }
    }

    private LeaseClaim<NodeVersion> registerLive(ZooKeeperNode.Layout layout, MachineIdRange range, int blockSize)
            throws Exception {
        for (int attempt = 0; attempt < 16; attempt++) {
            // A write's mtime is the ZooKeeper leader's clock: a reference for how long ago others reported
            // that does not depend on this node's clock, which is what is being checked.
            long serverNow = client.setData().forPath(foreverPath, ZooKeeperNode.EMPTY).getMtime();
            long now = timeSource.currentTimeMillis();
            long until = now + leaseMillis;
            List<ZooKeeperNode> nodes = ZooKeeperNode.readAll(client, foreverPath, layout, range, holdMillis);
            ZooKeeperNode own = nodes.stream().filter(n -> n.owner().equals(owner) && n.machineId() >= 0)
                    .min(Comparator.comparingLong(ZooKeeperNode::sequence)).orElse(null);
            lastTime = now;
            if (own != null && now < own.time()) {
                throw ZooKeeperNode.clockBehind(now, own.time(), " to ZooKeeper", "in " + own.path());
            }
            checkClock(now, serverNow, nodes);
            if (own != null) {
                range.checkBlock("the machine ID recorded in " + own.path(), own.machineId(), blockSize);
                try {
                    // After a clean close the node wrote the exact time of its last ID; otherwise the previous
                    // run may have issued up to the end of its lease.
                    long mark = Math.max(own.until(), cache.untilOf(own.path()));
                    // Versioned: a report of the previous run between our read and this write moves the version,
                    // and we read again; after this write, that run's next report fails and it stops. It never
                    // issued past the lease end of its last successful report, which is what we read.
                    Stat stat = client.setData().withVersion(own.version()).forPath(own.path(),
                            ZooKeeperNode.encode(own.machineId(), now, Math.max(until, mark), false, process));
                    return new LeaseClaim<>(new MachineIdBlock(own.machineId(), blockSize), until, mark, null,
                            new NodeVersion(own.path(), stat.getVersion()));
                } catch (KeeperException.BadVersionException | KeeperException.NoNodeException e) {
                    continue; // changed under us (a reclaim); look again
                }
            }
            String path = client.create().withMode(CreateMode.PERSISTENT_SEQUENTIAL)
                    .forPath(foreverPath + "/" + owner + "-", ZooKeeperNode.encode(-1, now, now, false, process));
            long sequence = Long.parseLong(path.substring(path.length() - 10));
            long id = layout.firstOf(sequence, range);
            if (id >= 0) {
                Stat stat = client.setData().withVersion(0).forPath(path,
                        ZooKeeperNode.encode(id, now, until, false, process));
                return new LeaseClaim<>(new MachineIdBlock(id, blockSize), until, null, null,
                        new NodeVersion(path, stat.getVersion()));
            }
            client.delete().forPath(path);
            LeaseClaim<NodeVersion> reclaimed = stale.reclaim(range, blockSize, nodes, serverNow, now);
            if (reclaimed != null) {
                return reclaimed;
            }
            throw stale.full(range, blockSize, nodes, serverNow);
        }
        throw new MachineIdUnavailableException("Gave up registering under " + foreverPath
                + ": the nodes kept changing");
    }

    /**
     * Refuses a start whose clock lies more than maxClockDifference from the average of the other live nodes' clocks,
     * each moved on by how long ago the ZooKeeper leader ({@code serverNow}) received its report, so that a report
     * interval does not count as a clock difference.
     */
    private void checkClock(long now, long serverNow, List<ZooKeeperNode> nodes) {
        List<ZooKeeperNode> others = nodes.stream().filter(n -> !n.owner().equals(owner) && !n.closed() && n.time() > 0
                && serverNow - n.mtime() <= LIVE_INTERVALS * reportMillis).toList();
        if (others.isEmpty()) {
            return;
        }
        long average = Math.round(others.stream().mapToDouble(n -> n.time() + (serverNow - n.mtime())).sum()
                / others.size());
        long difference = now - average;
        if (Math.abs(difference) > maxClockDifferenceMillis) {
            throw new MachineIdUnavailableException("This node's clock reads " + Instant.ofEpochMilli(now) + ", "
                    + Math.abs(difference) + " ms " + (difference < 0 ? "behind" : "ahead of") + " the average of the "
                    + others.size() + " other live nodes under " + foreverPath + " (" + Instant.ofEpochMilli(average)
                    + "); at most " + maxClockDifferenceMillis + " ms (maxClockDifference) is allowed. Fix this host's"
                    + " clock (NTP) and start again.");
        }
    }

    /**
     * A report: writes the current time and {@code highWater} into this node's ZooKeeper node. From the cache, the node
     * is read first to confirm the ID. {@code highWater} is never below the lease end this node took the ID over with
     * ({@link LeaseClaim#highWater}), so whoever takes the ID from this node starts after that too.
     */
    @Override
    public Renewal<NodeVersion> renew(LeaseClaim<NodeVersion> held, long expiry, long highWater) throws Exception {
        String path = held.fence().path();
        long machineId = held.block().first();
        try {
            int version = held.fence().version();
            if (held.fence().fromCache()) {
                Stat stat = new Stat();
                Properties fields = ZooKeeperNode.decode(client.getData().storingStatIn(stat).forPath(path));
                if (Long.parseLong(fields.getProperty("machineId", "-1")) != machineId) {
                    return Renewal.lost(path + " now records machine ID " + fields.getProperty("machineId") + ": "
                            + fields);
                }
                version = stat.getVersion();
                log.log(Level.INFO, () -> "ZooKeeper at " + where + " confirmed the cached machine ID " + machineId);
            }
            lastTime = Math.max(timeSource.currentTimeMillis(), lastTime);
            Written written = write(path, version, machineId, lastTime, highWater, false);
            if (written.other() != null) {
                return Renewal.lost(Boolean.parseBoolean(written.other().getProperty("released"))
                        ? "its lease on " + path + " was ended by an operator (DELETE /vesta/admin/leases): another"
                                + " node may take machine ID " + machineId + " now, after this node's last lease end"
                        : path + " was rewritten by another process (" + written.other() + ")");
            }
            cache.write(path, machineId, held.block().size(), lastTime, highWater, false);
            live.ensure(log);
            return Renewal.renewed(new NodeVersion(path, written.version()));
        } catch (KeeperException.NoNodeException e) {
            return Renewal.lost(path + " was deleted: another node reclaimed machine ID " + machineId + " after it went"
                    + " without a report for reclaimAfter (" + reclaimAfterMillis + "ms), or it was removed by hand");
        }
    }

    /** A versioned write: the node's version after it, or, when it did not land, the node as found, not ours. */
    private record Written(int version, Properties other) {
    }

    /**
     * Writes {@code time} and {@code until} to this node at {@code version}. When the version has moved on and the
     * node still holds this process's own write for {@code machineId}, with no operator's end, it was one of ours
     * whose answer was lost (or that close() interrupted), so the write goes again at the version read.
     */
    private Written write(String path, int version, long machineId, long time, long until, boolean closing)
            throws Exception {
        byte[] data = ZooKeeperNode.encode(machineId, time, until, closing, process);
        try {
            return new Written(client.setData().withVersion(version).forPath(path, data).getVersion(), null);
        } catch (KeeperException.BadVersionException e) {
            Stat stat = new Stat();
            Properties found = ZooKeeperNode.decode(client.getData().storingStatIn(stat).forPath(path));
            if (!process.equals(found.getProperty("process")) || Boolean.parseBoolean(found.getProperty("released"))
                    || !String.valueOf(machineId).equals(found.getProperty("machineId"))) {
                return new Written(-1, found);
            }
            return new Written(client.setData().withVersion(stat.getVersion()).forPath(path, data).getVersion(), null);
        }
    }

    /**
     * The closing report: the exact time of the last ID with a closed mark, so a prompt restart need not wait; the
     * node stays, so the owner gets the same ID back. Skipped without a connection (a shutdown never waits out
     * Curator's retries against a dead ensemble) and for an ID ZooKeeper has not confirmed.
     */
    @Override
    public boolean release(LeaseClaim<NodeVersion> held, long now, long highWater) throws Exception {
        if (held.fence().fromCache() || !client.getZookeeperClient().isConnected()) {
            return false;
        }
        String path = held.fence().path();
        long machineId = held.block().first();
        lastTime = Math.max(now, lastTime);
        try {
            if (write(path, held.fence().version(), machineId, lastTime, highWater, true).other() != null) {
                return false; // ended by an operator, or rewritten by another process: not this one's to close
            }
            cache.write(path, machineId, held.block().size(), lastTime, highWater, true);
            return true;
        } catch (KeeperException.BadVersionException | KeeperException.NoNodeException e) {
            return false; // reclaimed or ended meanwhile: the node is not this one's to close
        } finally {
            live.release();
        }
    }

    @Override
    public String unreleased(LeaseClaim<NodeVersion> held, long lastWrittenExpiry) {
        return "a restart under owner '" + owner + "' starts after the lease end of the last report, "
                + Instant.ofEpochMilli(held.highWater(lastWrittenExpiry));
    }

    @Override
    public MachineIdLeases leases(LongPredicate heldHere) {
        return new ZooKeeperMachineIdLeases(this, heldHere);
    }

    /** Four connection timeouts and a second. */
    @Override
    public Duration closeTimeout() {
        return Duration.ofMillis(connectionTimeoutMillis * 4 + 1000);
    }

    /** Closes the Curator client if it is the provider's own. */
    @Override
    public void close() {
        if (ownsClient) {
            client.close();
        }
    }

    /** Starts the owned Curator client if nothing has yet: a claim at start-up, or the lease admin before any claim. */
    synchronized void start() {
        if (client.getState() == CuratorFrameworkState.LATENT) {
            client.start();
        }
    }

    /** For the lease admin, which may run before (or without) any claim: starts the client, waits for ZooKeeper. */
    void connect() throws InterruptedException {
        start();
        if (!client.blockUntilConnected((int) connectionTimeoutMillis, TimeUnit.MILLISECONDS)) {
            throw new MachineIdUnavailableException("No connection to ZooKeeper at " + where + " within "
                    + connectionTimeoutMillis + "ms (connectionTimeout)");
        }
    }
}
