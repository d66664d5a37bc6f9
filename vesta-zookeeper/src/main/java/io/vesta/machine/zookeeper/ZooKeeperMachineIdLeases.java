package io.vesta.machine.zookeeper;

import io.vesta.machine.LeaseChangeRefusedException;
import io.vesta.machine.MachineIdLeaseInfo;
import io.vesta.machine.MachineIdLeases;
import io.vesta.machine.MachineIdRange;
import io.vesta.machine.MachineIdUnavailableException;
import org.apache.zookeeper.KeeperException;

import java.lang.System.Logger.Level;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.function.LongPredicate;

/**
 * The nodes of the namespace by machine ID, for an operator. A node is live while its owner's live node exists or its
 * last report's lease has not ended, unless it closed cleanly (its {@code until} is then the exact end of its IDs).
 * Ending a lease adds {@code released=true} with a write conditional on the node's version, {@code until} kept: the
 * holder's next report fails, and another node may reclaim the ID at once, starting after that {@code until}. Works
 * from any provider, one that never acquired included: it maps nodes to IDs by what the namespace records.
 */
final class ZooKeeperMachineIdLeases implements MachineIdLeases {

    /** How often an end is tried while only the holder's own reports move its node on. */
    private static final int ATTEMPTS = 5;

    private final ZooKeeperLeaseBackend store;
    private final LongPredicate heldHere;

    ZooKeeperMachineIdLeases(ZooKeeperLeaseBackend store, LongPredicate heldHere) {
        this.store = store;
        this.heldHere = heldHere;
    }

    @Override
    public String describe() {
        return "zookeeper " + store.foreverPath;
    }

    @Override
    public List<MachineIdLeaseInfo> list(MachineIdRange range) {
        try {
            long now = store.timeSource.currentTimeMillis();
            List<MachineIdLeaseInfo> leases = new ArrayList<>();
            Nodes nodes = nodes();
            for (long id = range.min(); id <= range.max(); id++) {
                ZooKeeperNode node = nodes.holderOf(id);
                leases.add(node == null ? MachineIdLeaseInfo.free(id) : info(node, id, now));
            }
            return leases;
        } catch (Exception e) {
            throw new MachineIdUnavailableException("Cannot read the nodes under " + store.foreverPath + " at "
                    + store.where + ": " + e, e);
        }
    }

    /**
     * Ends the lease with a write conditional on the version read. A report of the same holder (the same node, written
     * by the same process) in between only moved the version: the end is tried again, up to {@value #ATTEMPTS} times,
     * since a holder reporting every interval would otherwise keep the operator from ever ending it. Anything else in
     * between (a reclaim, a restart of the owner in another process) is refused as {@code changed}.
     */
    @Override
    public Released release(long machineId, boolean force) {
        ZooKeeperNode previous = null;
        for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
            try {
                long now = store.timeSource.currentTimeMillis();
                Nodes nodes = nodes();
                ZooKeeperNode node = nodes.holderOf(machineId);
                if (previous != null && (node == null || !node.path().equals(previous.path())
                        || !Objects.equals(node.process(), previous.process()))) {
                    throw changed(machineId);
                }
                if (node == null) {
                    throw new IllegalArgumentException("No node under " + store.foreverPath + " holds machine ID "
                            + machineId + ": it was never assigned");
                }
                MachineIdLeaseInfo before = info(node, machineId, now);
                if (before.self()) {
                    throw new LeaseChangeRefusedException(machineId, "own", "Machine ID " + machineId + " is held by"
                            + " this process (owner '" + store.owner + "'); stop it to release the ID");
                }
                String lease = "The lease of owner '" + node.owner() + "' on machine ID " + machineId;
                if (node.released()) {
                    return new Released(before, before, false, lease + " was ended already; another node may"
                            + " reclaim it (after " + before.highWater() + ")");
                }
                if (before.live() && !force) {
                    throw new LeaseChangeRefusedException(machineId, "live", lease + " is live (its live node exists,"
                            + " or its lease runs until " + before.leaseExpiry() + "): its holder may be running. Stop"
                            + " it, or force the release if its process is gone");
                }
                try {
                    store.client.setData().withVersion(node.version()).forPath(node.path(), node.releasedData());
                } catch (KeeperException.BadVersionException e) {
                    previous = node;
                    continue;
                }
                MachineIdLeaseInfo after = info(nodes().holderOf(machineId), machineId, now);
                String ended = "Ended the lease of owner '" + node.owner() + "' on machine ID " + machineId;
                store.log.log(Level.WARNING, () -> ended + " (" + node.path() + ")" + (before.live() ? " by force" : "")
                        + "; the next holder starts after " + before.highWater());
                return new Released(before, after, true, ended + (nodes.blockSize() > 1 ? " and the rest of its block"
                        : "") + "; another node may reclaim it at once, starting after " + before.highWater()
                        + (before.live() ? ", and its holder stops issuing at its next report" : ""));
            } catch (KeeperException.NoNodeException e) {
                throw changed(machineId);
            } catch (IllegalArgumentException | LeaseChangeRefusedException e) {
                throw e;
            } catch (Exception e) {
                throw new MachineIdUnavailableException("Cannot end the lease on machine ID " + machineId + " under "
                        + store.foreverPath + " at " + store.where + ": " + e, e);
            }
        }
        throw changed(machineId);
    }

    private static LeaseChangeRefusedException changed(long machineId) {
        return new LeaseChangeRefusedException(machineId, "changed", "The node of machine ID " + machineId
                + " changed while its lease was being ended (its holder reported, or it was reclaimed); read the"
                + " leases again");
    }

    /** The namespace's nodes and its block size. */
    private record Nodes(List<ZooKeeperNode> all, int blockSize) {

        /** The node whose block holds {@code id}: the one with the lowest sequence, as a registration picks it. */
        ZooKeeperNode holderOf(long id) {
            return all.stream().filter(n -> n.machineId() >= 0 && id >= n.machineId() && id < n.machineId() + blockSize)
                    .min(Comparator.comparingLong(ZooKeeperNode::sequence)).orElse(null);
        }
    }

    /**
     * The namespace's nodes, by the layout it records; none before a node registered. A node created a moment ago,
     * whose ID is not written yet, is taken to hold its sequence's block by that layout, anywhere it can reach (the
     * range end is the registering node's; one past it deletes its node at once).
     */
    private Nodes nodes() throws Exception {
        store.connect();
        ZooKeeperNode.Layout layout = ZooKeeperNode.readLayout(store.client, store.namespacePath);
        if (layout == null) {
            return new Nodes(List.of(), 1);
        }
        try {
            return new Nodes(ZooKeeperNode.readAll(store.client, store.foreverPath, layout, layout.reach(),
                    store.holdMillis), layout.blockSize());
        } catch (KeeperException.NoNodeException e) {
            return new Nodes(List.of(), layout.blockSize()); // recorded, and no owner's node yet
        }
    }

    private MachineIdLeaseInfo info(ZooKeeperNode node, long id, long now) throws Exception {
        boolean liveNode = LiveOwnerNode.exists(store.client, store.namespace, node.owner());
        // A clean close gave the ID back: its until is the exact end of its IDs, not a lease still running.
        boolean live = !node.released() && !node.closed() && (liveNode || node.until() > now);
        return new MachineIdLeaseInfo(id, live ? MachineIdLeaseInfo.State.LIVE : MachineIdLeaseInfo.State.EXPIRED,
                node.owner(), Instant.ofEpochMilli(node.until()), Instant.ofEpochMilli(node.until()), node.version(),
                heldHere.test(id));
    }
}
