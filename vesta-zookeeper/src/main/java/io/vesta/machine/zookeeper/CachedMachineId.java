package io.vesta.machine.zookeeper;

import io.vesta.machine.MachineIdCacheFile;
import io.vesta.machine.MachineIdRange;
import io.vesta.machine.MachineIdUnavailableException;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Properties;

/**
 * The machine ID cached on this host ({@link MachineIdCacheFile}), so that ZooKeeper being down never stops a restart:
 * a start from it (ZooKeeper unreachable) starts after the cached {@code until} and caches its own lease end before it
 * issues, so a later restart on this host starts after it too; ZooKeeper confirms the ID at the next report. It is the
 * one path that ZooKeeper does not fence: safe as long as no other process uses the owner, which the default owner
 * (host name, address, port) makes so.
 */
final class CachedMachineId {

    /** What the cache holds: the node, the ID, the time ZooKeeper last confirmed it and the lease end of that run. */
    record Entry(String path, long machineId, long time, long until) {
    }

    private final ZooKeeperLeaseBackend store;
    private final MachineIdCacheFile cache;

    CachedMachineId(ZooKeeperLeaseBackend store, Path file) {
        this.store = store;
        this.cache = new MachineIdCacheFile(file);
    }

    Path file() {
        return cache.file();
    }

    /**
     * The cached ID, to start from while ZooKeeper cannot be reached ({@code why}). It may be used while younger than
     * half of reclaimAfter ({@code holdMillis}), the margin that keeps reclaimers away.
     * @throws MachineIdUnavailableException when none is cached, or the cached one may not be used
     */
    Entry startFrom(MachineIdRange range, int blockSize, String why, long now) {
        Path file = cache.file();
        String owner = store.owner;
        String namespace = store.namespace;
        long holdMillis = store.holdMillis;
        String unreachable = "Cannot reach ZooKeeper at " + store.where + " (" + why + ")";
        Properties cached;
        try {
            cached = cache.read();
        } catch (NoSuchFileException e) {
            throw new MachineIdUnavailableException(unreachable + " and no machine ID is cached in " + file
                    + ": a node's first start needs ZooKeeper");
        } catch (IOException e) {
            throw new MachineIdUnavailableException(unreachable + " nor read the cached machine ID in " + file + ": "
                    + e, e);
        }
        if (!owner.equals(cached.getProperty("owner")) || !namespace.equals(cached.getProperty("namespace"))) {
            throw new MachineIdUnavailableException(unreachable + ", and the machine ID cached in " + file
                    + " belongs to owner '" + cached.getProperty("owner") + "' in namespace '"
                    + cached.getProperty("namespace") + "', not to '" + owner + "' in '" + namespace + "'");
        }
        long id;
        int cachedBlockSize;
        long time;
        long until;
        try {
            id = Long.parseLong(cached.getProperty("machineId"));
            // A record of a version before blocks has no block size: it held a single ID.
            cachedBlockSize = Integer.parseInt(cached.getProperty("blockSize", "1"));
            time = Long.parseLong(cached.getProperty("time"));
            until = ZooKeeperNode.untilOf(cached, holdMillis);
        } catch (NumberFormatException e) {
            throw new MachineIdUnavailableException(unreachable + ", and " + file + " does not hold a machine ID and"
                    + " a time: " + cached, e);
        }
        if (cached.getProperty("path") == null) {
            throw new MachineIdUnavailableException(unreachable + ", and " + file + " does not name the node to"
                    + " confirm the ID with: " + cached);
        }
        if (cachedBlockSize != blockSize) {
            throw new MachineIdUnavailableException(unreachable + ", and the machine ID " + id + " cached in " + file
                    + " starts a block of " + cachedBlockSize + ", not of " + blockSize + " (the block size now"
                    + " configured): a block of another size could overlap other nodes'. Start with the block size of"
                    + " the cached run, or once ZooKeeper is reachable.");
        }
        range.checkBlock("the machine ID cached in " + file, id, blockSize);
        if (now < time) {
            throw ZooKeeperNode.clockBehind(now, time, "", "cached in " + file);
        }
        if (now >= time + holdMillis) {
            throw new MachineIdUnavailableException(unreachable + ", and the machine ID " + id + " cached in " + file
                    + " was last confirmed at " + Instant.ofEpochMilli(time) + ", more than half of reclaimAfter ("
                    + holdMillis + "ms) ago: another node may have reclaimed it");
        }
        store.log.log(Level.WARNING, () -> unreachable + "; using machine ID " + id + " cached in " + file
                + ", last confirmed at " + Instant.ofEpochMilli(time) + ", as Leaf does. IDs are issued for up to "
                + store.leaseMillis + "ms (lease) unless ZooKeeper confirms the ID first.");
        // The previous run may have issued up to the lease end it last reported (cached with each report).
        return new Entry(cached.getProperty("path"), id, time, until);
    }

    /** The lease end cached for {@code path} on this host, or Long.MIN_VALUE. */
    long untilOf(String path) {
        try {
            Properties cached = cache.read();
            if (path.equals(cached.getProperty("path")) && store.owner.equals(cached.getProperty("owner"))) {
                return ZooKeeperNode.untilOf(cached, store.holdMillis);
            }
        } catch (IOException | RuntimeException e) {
            // no cache, or an unreadable one: ZooKeeper's record stands
        }
        return Long.MIN_VALUE;
    }

    /** Replaces the record; a failure is logged, since ZooKeeper's record stands without it. */
    void write(String path, long machineId, int blockSize, long time, long until, boolean closed) {
        try {
            cache.write(new MachineIdCacheFile.Entry(store.owner, store.namespace, path, machineId, blockSize, time,
                    until, closed));
        } catch (IOException e) {
            store.log.log(Level.WARNING, "Cannot cache the machine ID in " + cache.file() + ": " + e);
        }
    }
}
