package io.vesta.machine.zookeeper;

import io.vesta.machine.LeaseClaim;
import io.vesta.machine.MachineIdBlock;
import io.vesta.machine.MachineIdRange;
import io.vesta.machine.MachineIdUnavailableException;
import io.vesta.machine.zookeeper.ZooKeeperLeaseBackend.NodeVersion;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;

import java.lang.System.Logger.Level;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;

/**
 * What a registration does once the node sequence has passed the end of the range: reclaim the ID of another owner's
 * node that went {@code reclaimAfter} without a report (by the ZooKeeper leader's clock) or whose lease an operator
 * ended, else refuse, saying why.
 */
final class StaleNodes {

    private final ZooKeeperLeaseBackend store;

    StaleNodes(ZooKeeperLeaseBackend store) {
        this.store = store;
    }

    private static final Comparator<ZooKeeperNode> BY_ID = Comparator.comparingLong(ZooKeeperNode::machineId);

    /**
     * Takes a stale node over in one transaction: delete it at the version read, create this owner's with its ID. A
     * report of it in between fails the whole transaction, so an ID passes to exactly one new owner, and the former
     * holder's next report finds its node gone. The taker starts after the former holder's lease end. Stale nodes are
     * tried in the range's order (the highest machine ID first when descending).
     * @return null when no node can be reclaimed
     */
    LeaseClaim<NodeVersion> reclaim(MachineIdRange range, int blockSize, List<ZooKeeperNode> nodes, long serverNow,
            long now) throws Exception {
        CuratorFramework client = store.client;
        List<ZooKeeperNode> stale = nodes.stream()
                .filter(n -> n.machineId() >= 0 && range.contains(n.machineId()) && !n.owner().equals(store.owner)
                        && (n.released() || serverNow - n.mtime() > store.reclaimAfterMillis))
                .sorted(range.order() == MachineIdRange.Order.ASCENDING ? BY_ID : BY_ID.reversed()).toList();
        for (ZooKeeperNode node : stale) {
            long until = now + store.leaseMillis;
            try {
                String path = client.transaction().forOperations(
                        client.transactionOp().delete().withVersion(node.version()).forPath(node.path()),
                        client.transactionOp().create().withMode(CreateMode.PERSISTENT_SEQUENTIAL).forPath(
                                store.foreverPath + "/" + store.owner + "-", ZooKeeperNode.encode(node.machineId(),
                                        now, Math.max(until, node.until()), false, store.process)))
                        .get(1).getResultPath();
                store.log.log(Level.WARNING, () -> "Reclaimed machine ID " + node.machineId() + " from " + node.path()
                        + " (owner '" + node.owner() + "', " + (node.released() ? "released by an operator"
                        : "silent for " + (serverNow - node.mtime()) + "ms") + "); IDs start after "
                        + Instant.ofEpochMilli(node.until()));
                return new LeaseClaim<>(new MachineIdBlock(node.machineId(), blockSize), until, node.until(),
                        node.owner(), new NodeVersion(path, 0));
            } catch (KeeperException.BadVersionException | KeeperException.NoNodeException e) {
                // it reported after all, or another node was faster: try the next
            }
        }
        return null;
    }

    /** The refusal when no block is free and none can be reclaimed. */
    MachineIdUnavailableException full(MachineIdRange range, int blockSize, List<ZooKeeperNode> nodes, long serverNow) {
        long held = nodes.stream().filter(n -> n.machineId() >= 0 && range.contains(n.machineId())).count();
        long oldest = nodes.stream().filter(n -> n.machineId() >= 0).mapToLong(n -> serverNow - n.mtime()).max()
                .orElse(0);
        boolean single = blockSize == 1;
        return new MachineIdUnavailableException("No " + (single ? "machine ID" : "block of " + blockSize
                + " machine IDs") + " is free in range " + range + " under " + store.foreverPath + " at " + store.where
                + ": the node sequence has passed the end of the range" + (single ? ""
                : " (" + range.blocks(blockSize) + " blocks of " + blockSize + ")") + ", " + held + " nodes hold "
                + (single ? "IDs" : "blocks") + " in it, and none has gone without a report for reclaimAfter ("
                + store.reclaimAfterMillis + "ms; the longest silence is " + oldest + "ms). Widen the range, use a new"
                + " namespace, or lower reclaimAfter.");
    }
}
