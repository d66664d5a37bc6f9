package io.vesta.machine.zookeeper;

import io.vesta.machine.LeaseClaim;
import io.vesta.machine.MachineIdBlock;
import io.vesta.machine.MachineIdRange;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;

import java.lang.System.Logger.Level;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;

/**
 * Reclaiming the machine ID of a node that has not reported for {@code reclaimAfter}, or whose lease an operator
 * ended: what a claim does once the node sequence has passed the end of the range.
 */
final class StaleNodes {

    private final CuratorFramework client;
    private final String foreverPath;
    private final String owner;
    private final String process;
    private final long leaseMillis;
    private final long reclaimAfterMillis;
    private final System.Logger log;

    StaleNodes(CuratorFramework client, String foreverPath, String owner, String process, long leaseMillis,
            long reclaimAfterMillis, System.Logger log) {
        this.client = client;
        this.foreverPath = foreverPath;
        this.owner = owner;
        this.process = process;
        this.leaseMillis = leaseMillis;
        this.reclaimAfterMillis = reclaimAfterMillis;
        this.log = log;
    }

    /*
     * Taking over a stale node is one ZooKeeper transaction: delete the stale node at the version we read,
     * and create ours carrying its machine ID. If the stale node reported (or someone else reclaimed it) in
     * between, its version moved or it is gone, and the whole transaction fails: an ID passes to exactly one
     * new owner. The old owner's next report then finds its node gone and stops it for good.
     */
    LeaseClaim<ZooKeeperLeaseBackend.NodeVersion> reclaim(MachineIdRange range, int blockSize, List<ZooKeeperNode> nodes,
            long serverNow, long now) throws Exception {
        List<ZooKeeperNode> stale = nodes.stream()
                .filter(n -> n.machineId() >= 0 && range.contains(n.machineId()) && !n.owner().equals(owner)
                        && (n.released() || serverNow - n.mtime() > reclaimAfterMillis))
                .sorted(Comparator.comparingLong(ZooKeeperNode::machineId)).toList();
        for (ZooKeeperNode node : stale) {
            try {
                // The old owner may have issued until the lease end of its last report, by its own clock.
                long mark = node.until();
                String path = client.transaction().forOperations(
                        client.transactionOp().delete().withVersion(node.version()).forPath(node.path()),
                        client.transactionOp().create().withMode(CreateMode.PERSISTENT_SEQUENTIAL)
                                .forPath(foreverPath + "/" + owner + "-", ZooKeeperNode.encode(node.machineId(), now,
                                        Math.max(now + leaseMillis, mark), false, process))).get(1).getResultPath();
                log.log(Level.WARNING, () -> "Reclaimed machine ID " + node.machineId() + " from " + node.path()
                        + " (owner '" + node.owner() + "', " + (node.released() ? "released by an operator" : "silent for "
                        + (serverNow - node.mtime()) + "ms") + "); IDs start after " + Instant.ofEpochMilli(mark));
                return new LeaseClaim<>(new MachineIdBlock(node.machineId(), blockSize), now + leaseMillis, mark,
                        node.owner(), new ZooKeeperLeaseBackend.NodeVersion(path, 0));
            } catch (KeeperException.BadVersionException | KeeperException.NoNodeException e) {
                // it reported after all, or another node was faster: try the next
            }
        }
        return null;
    }
}
