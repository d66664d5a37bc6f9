package io.vesta.machine.zookeeper;

import io.vesta.machine.MachineIdRange;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The namespace node {@code /vesta/{namespace}}, which records the range start (and block size) the namespace assigns
 * machine IDs by: machine IDs are sequence + range start, so two ranges with different starts in one namespace could
 * map two sequences to one ID, and two block sizes could map them to overlapping IDs.
 */
final class NamespaceRecord {

    private NamespaceRecord() {
    }

    /** What a namespace records: the start of the range it assigns machine IDs from, and its block size. */
    record Layout(long rangeStart, int blockSize) {
    }

    /**
     * What the namespace node records, or {@code null} when no node has registered in the namespace yet. A record
     * without a block size is one of single IDs.
     */
    static Layout read(CuratorFramework client, String namespacePath) throws Exception {
        byte[] recorded;
        try {
            recorded = client.getData().forPath(namespacePath);
        } catch (KeeperException.NoNodeException e) {
            return null;
        }
        if (recorded == null || recorded.length == 0) {
            return null;
        }
        java.util.Properties fields = ZooKeeperNode.decode(recorded);
        try {
            return new Layout(Long.parseLong(fields.getProperty("rangeStart").strip()),
                    Integer.parseInt(fields.getProperty("blockSize", "1").strip()));
        } catch (NullPointerException | NumberFormatException e) {
            throw new IllegalStateException("The namespace node " + namespacePath + " does not record a range start and"
                    + " block size: " + new String(recorded, StandardCharsets.UTF_8).strip().replace('\n', ' '), e);
        }
    }

    /**
     * Records {@code range} and {@code blockSize} in the namespace node unless it holds them already, and creates the
     * node of the owners' nodes.
     * @throws IllegalArgumentException when the namespace records another range start or block size
     */
    static void ensure(CuratorFramework client, String namespace, String namespacePath, String foreverPath,
            MachineIdRange range, int blockSize) throws Exception {
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
            client.create().forPath(foreverPath, ZooKeeperNode.EMPTY);
        } catch (KeeperException.NodeExistsException e) {
            // created by another node
        }
    }
}
