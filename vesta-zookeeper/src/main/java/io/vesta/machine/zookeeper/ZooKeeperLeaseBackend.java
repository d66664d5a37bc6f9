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
 * write to a node is conditional on the version this node read or wrote last, its fence.
 */
final class ZooKeeperLeaseBackend implements LeaseBackend<ZooKeeperLeaseBackend.NodeVersion> {

    /**
     * What fences this node's writes: its node, and the node's version it read or wrote last; -1 while the ID is the
     * cache's and ZooKeeper has not confirmed it yet (the next report does).
     */
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
    final TimeSource timeSource;
    final System.Logger log;
    private final boolean ownsClient;
    private final String where;
    private final long leaseMillis;
    private final long reclaimAfterMillis;
    /** How old a cached ID may be and still be used, and a legacy record's lease: half of reclaimAfter. */
    final long holdMillis;
    private final long connectionTimeoutMillis;
    /** Marks this process's writes, to tell a write of ours whose answer was lost from someone else's. */
    private final String process = Long.toHexString(new SecureRandom().nextLong());
    private final LiveOwnerNode live;
    private final ClockAgreement clocks;
    private final StaleNodes stale;
    private final CachedMachineId cache;

    private volatile String nodePath;
    // Under the provider's store lock: the time and lease end written last.
    private long lastTime;
    private long lastUntil;

    ZooKeeperLeaseBackend(ZooKeeperMachineIdProvider.Builder builder, LeaseSettings settings, System.Logger log) {
        this.namespace = builder.namespace;
        this.owner = settings.owner();
        this.timeSource = settings.timeSource();
        this.log = log;
        this.ownsClient = builder.client == null;
        this.where = builder.connectString != null ? builder.connectString : "the application's Curator client";
        this.leaseMillis = settings.lease().toMillis();
        this.reclaimAfterMillis = builder.reclaimAfter.toMillis();
        this.holdMillis = reclaimAfterMillis / 2;
        this.connectionTimeoutMillis = builder.connectionTimeout.toMillis();
        this.namespacePath = "/vesta/" + namespace;
        this.foreverPath = namespacePath + "/forever";
        this.client = builder.client != null ? builder.client : CuratorFrameworkFactory.builder()
                .connectString(builder.connectString)
                .connectionTimeoutMs((int) connectionTimeoutMillis)
                // A crashed process's live node goes when its session expires: within a lease, so that a restart
                // under the same owner waits no longer for it than it waits for the crashed run's lease anyway.
                .sessionTimeoutMs((int) Math.min(Integer.MAX_VALUE, leaseMillis))
                .retryPolicy(new ExponentialBackoffRetry(100, 3))
                .build();
        long reportMillis = settings.renewal().toMillis();
        this.live = new LiveOwnerNode(client, namespacePath, namespace, owner, process, leaseMillis, reportMillis);
        this.clocks = new ClockAgreement(reportMillis, builder.maxClockDifference.toMillis(), foreverPath);
        this.stale = new StaleNodes(client, foreverPath, owner, process, leaseMillis, reclaimAfterMillis, log);
        this.cache = new CachedMachineId(builder.cacheFile != null ? builder.cacheFile : Path.of(
                System.getProperty("java.io.tmpdir"), "vesta", namespace, owner.replaceAll("[^A-Za-z0-9._-]", "_")
                + ".machine-id"), owner, namespace, where, holdMillis, leaseMillis);
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
        return "zookeeper (" + (held == null ? nodePath : held.fence().path()) + (held != null && held.fence().fromCache()
                ? ", from the cache " + cache.file() + " until ZooKeeper confirms it" : "")
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
                throw new MachineIdUnavailableException("not connected to ZooKeeper at " + where + "; a lost machine ID is"
                        + " replaced only through ZooKeeper, never from the cache");
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
        lastUntil = claim.highWater(claim.expiry());
        // Cached at once, from ZooKeeper or not: a run that started from the cache issues up to this lease end
        // without ZooKeeper knowing, and a restart on this host must start after it.
        cache.write(nodePath, claim.block().first(), blockSize, lastTime, lastUntil, false, log);
        return claim;
    }

    private LeaseClaim<NodeVersion> fromCache(MachineIdRange range, int blockSize, String why) {
        long now = timeSource.currentTimeMillis();
        CachedMachineId.Entry cached = cache.startFrom(range, blockSize, why, now, log);
        lastTime = cached.time();
        return new LeaseClaim<>(new MachineIdBlock(cached.machineId(), blockSize), now + leaseMillis, cached.until(), null,
                new NodeVersion(cached.path(), -1));
    }

    private LeaseClaim<NodeVersion> register(MachineIdRange range, int blockSize) throws Exception {
        NamespaceRecord.ensure(client, namespace, namespacePath, foreverPath, range, blockSize);
        live.claim();
        try {
            return registerLive(range, blockSize);
        } catch (Exception | Error e) {
            live.release(); // refused or failed: the owner is free for the next attempt at once
            throw e;
        }
    }

    private LeaseClaim<NodeVersion> registerLive(MachineIdRange range, int blockSize) throws Exception {
        for (int attempt = 0; attempt < 16; attempt++) {
            // A write's mtime is the ZooKeeper leader's clock: a reference for how long ago others reported
            // that does not depend on this node's clock, which is what is being checked.
            long serverNow = client.setData().forPath(foreverPath, ZooKeeperNode.EMPTY).getMtime();
            long now = timeSource.currentTimeMillis();
            long until = now + leaseMillis;
            List<ZooKeeperNode> nodes = ZooKeeperNode.readAll(client, foreverPath, range, blockSize, holdMillis);
            ZooKeeperNode own = nodes.stream().filter(n -> n.owner().equals(owner) && n.machineId() >= 0)
                    .min(Comparator.comparingLong(ZooKeeperNode::sequence)).orElse(null);
            List<ZooKeeperNode> others = nodes.stream().filter(n -> !n.owner().equals(owner)).toList();
            lastTime = now;
            if (own != null) {
                if (now < own.time()) {
                    throw new MachineIdUnavailableException("This node's clock reads " + Instant.ofEpochMilli(now) + ", "
                            + (own.time() - now) + " ms behind the time it last reported to ZooKeeper, "
                            + Instant.ofEpochMilli(own.time()) + " (in " + own.path() + "): the clock was set back, and IDs"
                            + " issued before could repeat. Fix the clock, or start once it has passed that time.");
                }
                clocks.checkAgainstOthers(now, serverNow, others);
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
            clocks.checkAgainstOthers(now, serverNow, others);
            String path = client.create().withMode(CreateMode.PERSISTENT_SEQUENTIAL)
                    .forPath(foreverPath + "/" + owner + "-", ZooKeeperNode.encode(-1, now, now, false, process));
            long sequence = Long.parseLong(path.substring(path.length() - 10));
            if (sequence < range.blocks(blockSize)) {
                long id = range.blockStart(sequence, blockSize);
                Stat stat = client.setData().withVersion(0).forPath(path, ZooKeeperNode.encode(id, now, until, false, process));
                return new LeaseClaim<>(new MachineIdBlock(id, blockSize), until, null, null,
                        new NodeVersion(path, stat.getVersion()));
            }
            client.delete().forPath(path);
            LeaseClaim<NodeVersion> reclaimed = stale.reclaim(range, blockSize, nodes, serverNow, now);
            if (reclaimed != null) {
                return reclaimed;
            }
            long held = nodes.stream().filter(n -> n.machineId() >= 0 && range.contains(n.machineId())).count();
            long oldest = nodes.stream().filter(n -> n.machineId() >= 0).mapToLong(n -> serverNow - n.mtime()).max()
                    .orElse(0);
            throw new MachineIdUnavailableException("No " + (blockSize == 1 ? "machine ID" : "block of " + blockSize
                    + " machine IDs") + " is free in range " + range + " under " + foreverPath + " at " + where + ": the"
                    + " node sequence has passed the end of the range" + (blockSize == 1 ? "" : " (" + range.blocks(blockSize)
                    + " blocks of " + blockSize + ")") + ", " + held + " nodes hold " + (blockSize == 1 ? "IDs" : "blocks")
                    + " in it, and none has gone without a report for reclaimAfter (" + reclaimAfterMillis + "ms; the"
                    + " longest silence is " + oldest + "ms). Widen the range, use a new namespace, or lower reclaimAfter.");
        }
        throw new MachineIdUnavailableException("Gave up registering under " + foreverPath + ": the nodes kept changing");
    }

    /**
     * Writes the current time and {@code highWater} into this node's ZooKeeper node: a report. From the cache, the
     * node is read first to confirm the ID. {@code highWater} is never below the lease end this node took the ID over
     * with ({@link LeaseClaim#highWater}), up to which the former holder may issue (a whole lease ahead after an
     * operator's end, more when its clock runs ahead), so whoever takes the ID from this node starts after that too.
     */
    @Override
    public Renewal<NodeVersion> renew(LeaseClaim<NodeVersion> held, long expiry, long highWater) throws Exception {
        NodeVersion fence = held.fence();
        String path = fence.path();
        long machineId = held.block().first();
        try {
            if (fence.fromCache()) {
                Stat stat = new Stat();
                Properties fields = ZooKeeperNode.decode(client.getData().storingStatIn(stat).forPath(path));
                if (Long.parseLong(fields.getProperty("machineId", "-1")) != machineId) {
                    return Renewal.lost(path + " now records machine ID " + fields.getProperty("machineId") + ": " + fields);
                }
                fence = new NodeVersion(path, stat.getVersion());
                log.log(Level.INFO, () -> "ZooKeeper at " + where + " confirmed the cached machine ID " + machineId);
            }
            // As Leaf: never write a time behind one already written, or tried (a write may land unanswered).
            long time = Math.max(timeSource.currentTimeMillis(), lastTime);
            lastTime = time;
            Written written = write(path, fence.version(), machineId, time, highWater, false);
            if (written.other() != null) {
                return Renewal.lost(Boolean.parseBoolean(written.other().getProperty("released"))
                        ? "its lease on " + path + " was ended by an operator (DELETE /vesta/admin/leases): another"
                                + " node may take machine ID " + machineId + " now, after this node's last lease end"
                        : path + " was rewritten by another process (" + written.other() + ")");
            }
            lastUntil = highWater;
            cache.write(path, machineId, held.block().size(), time, highWater, false, log);
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
     * node stays, so the owner gets the same ID back. Skipped without a connection, so that a shutdown never waits out
     * Curator's retries against a dead ensemble (without the closing mark a restart merely waits for the lease end of
     * the last report), and for an ID ZooKeeper has not confirmed.
     *
     * <p>A report whose write landed but whose answer this node never had (close() interrupts a report in flight, or
     * the answer was lost) moved the node's version past the fence: the node is still this process's when its data
     * names this process, this machine ID and no operator's end, and the closing report is then written at the version
     * read. {@code highWater} stays right over that report's later {@code until}: no ID was issued under a lease end
     * this node was not told of.
     */
    @Override
    public boolean release(LeaseClaim<NodeVersion> held, long now, long highWater) throws Exception {
        if (held.fence().fromCache() || !client.getZookeeperClient().isConnected()) {
            return false;
        }
        long time = Math.max(now, lastTime);
        lastTime = time;
        String path = held.fence().path();
        long machineId = held.block().first();
        try {
            if (write(path, held.fence().version(), machineId, time, highWater, true).other() != null) {
                return false; // ended by an operator, or rewritten by another process: not this one's to close
            }
            lastUntil = highWater;
            cache.write(path, machineId, held.block().size(), time, highWater, true, log);
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
                + Instant.ofEpochMilli(lastUntil);
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

    String where() {
        return where;
    }

    /** Starts the owned Curator client if nothing has yet: a claim at start-up, or the lease admin before any claim. */
    synchronized void start() {
        if (client.getState() == CuratorFrameworkState.LATENT) {
            client.start();
        }
    }

    /**
     * For the lease admin, which may run before (or without) any claim: starts the client and waits up to the
     * connection timeout for ZooKeeper.
     */
    void connect() throws InterruptedException {
        start();
        if (!client.blockUntilConnected((int) connectionTimeoutMillis, TimeUnit.MILLISECONDS)) {
            throw new MachineIdUnavailableException("No connection to ZooKeeper at " + where + " within "
                    + connectionTimeoutMillis + "ms (connectionTimeout)");
        }
    }

    /** The node of this owner, once acquired. */
    String nodePath() {
        return nodePath;
    }

    Path cacheFile() {
        return cache.file();
    }
}
