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
import java.util.function.LongPredicate;

/**
 * The nodes of the namespace by machine ID. A node is live while its owner's ephemeral live node exists or its
 * last report's lease has not ended. Ending a lease is a write conditional on the node's version that adds
 * {@code released=true} and keeps everything else, {@code until} included: the holder's next report then fails and
 * it stops for good, and another node may reclaim the ID at once (rather than after reclaimAfter), starting after
 * that {@code until}, past every ID the holder could have issued. Usable once the provider has acquired its machine
 * ID, whose range and block size it lists by.
 */
final class ZooKeeperMachineIdLeases implements MachineIdLeases {

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
            List<ZooKeeperNode> nodes = nodes();
            for (long id = range.min(); id <= range.max(); id++) {
                ZooKeeperNode node = holderOf(nodes, id);
                leases.add(node == null ? MachineIdLeaseInfo.free(id) : info(node, id, now));
            }
            return leases;
        } catch (Exception e) {
            throw new MachineIdUnavailableException("Cannot read the nodes under " + store.foreverPath + " at "
                    + store.where() + ": " + e, e);
        }
    }

    @Override
    public Released release(long machineId, boolean force) {
        try {
            long now = store.timeSource.currentTimeMillis();
            ZooKeeperNode node = holderOf(nodes(), machineId);
            if (node == null) {
                throw new IllegalArgumentException("No node under " + store.foreverPath + " holds machine ID " + machineId
                        + ": it was never assigned");
            }
            MachineIdLeaseInfo before = info(node, machineId, now);
            if (before.self()) {
                throw new LeaseChangeRefusedException(machineId, "own", "Machine ID " + machineId + " is held by this"
                        + " process (owner '" + store.owner + "'); stop it to release the ID");
            }
            String lease = "The lease of owner '" + node.owner() + "' on machine ID " + machineId;
            if (node.released()) {
                return new Released(before, before, false, lease + " was ended already; another node may reclaim it"
                        + " (after " + before.highWater() + ")");
            }
            if (before.live() && !force) {
                throw new LeaseChangeRefusedException(machineId, "live", lease + " is live (its live node exists, or its"
                        + " lease runs until " + before.leaseExpiry() + "): its holder may be running. Stop it, or force"
                        + " the release if its process is gone");
            }
            store.client.setData().withVersion(node.version()).forPath(node.path(), node.releasedData());
            MachineIdLeaseInfo after = info(holderOf(nodes(), machineId), machineId, now);
            store.log.log(Level.WARNING, () -> "Ended the lease of owner '" + node.owner() + "' on machine ID "
                    + machineId + " (" + node.path() + ")" + (before.live() ? " by force" : "")
                    + "; the next holder starts after " + before.highWater());
            return new Released(before, after, true, "Ended the lease of owner '" + node.owner() + "' on machine ID "
                    + machineId + (store.blockSize > 1 ? " and the rest of its block" : "") + "; another node may"
                    + " reclaim it at once, starting after " + before.highWater() + (before.live()
                            ? ", and its holder stops issuing at its next report" : ""));
        } catch (KeeperException.BadVersionException | KeeperException.NoNodeException e) {
            throw new LeaseChangeRefusedException(machineId, "changed", "The node of machine ID " + machineId
                    + " changed while its lease was being ended (its holder reported, or it was reclaimed); read the"
                    + " leases again");
        } catch (IllegalArgumentException | LeaseChangeRefusedException e) {
            throw e;
        } catch (Exception e) {
            throw new MachineIdUnavailableException("Cannot end the lease on machine ID " + machineId + " under "
                    + store.foreverPath + " at " + store.where() + ": " + e, e);
        }
    }

    /** The namespace's nodes, by the range and block size the provider registered with. */
    private List<ZooKeeperNode> nodes() throws Exception {
        MachineIdRange registered = store.range;
        if (registered == null) {
            throw new IllegalStateException("This ZooKeeperMachineIdProvider has not acquired a machine ID yet");
        }
        return ZooKeeperNode.readAll(store.client, store.foreverPath, registered, store.blockSize, store.holdMillis);
    }

    /** The node whose block holds {@code id}: the one with the lowest sequence, as a registration picks it. */
    private ZooKeeperNode holderOf(List<ZooKeeperNode> nodes, long id) {
        int blockSize = store.blockSize;
        return nodes.stream().filter(n -> n.machineId() >= 0 && id >= n.machineId() && id < n.machineId() + blockSize)
                .min(Comparator.comparingLong(ZooKeeperNode::sequence)).orElse(null);
    }

    private MachineIdLeaseInfo info(ZooKeeperNode node, long id, long now) throws Exception {
        boolean liveNode = LiveOwnerNode.exists(store.client, store.namespacePath, node.owner());
        boolean live = !node.released() && (liveNode || node.until() > now);
        return new MachineIdLeaseInfo(id, live ? MachineIdLeaseInfo.State.LIVE : MachineIdLeaseInfo.State.EXPIRED,
                node.owner(), Instant.ofEpochMilli(node.until()), Instant.ofEpochMilli(node.until()), node.version(),
                heldHere.test(id));
    }
}
