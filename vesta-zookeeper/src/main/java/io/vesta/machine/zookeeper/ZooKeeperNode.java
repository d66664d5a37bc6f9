package io.vesta.machine.zookeeper;

import io.vesta.machine.MachineIdRange;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;

import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.regex.Pattern;

/**
 * An owner's node under {@code /vesta/{namespace}/forever}, {@code {owner}-{sequence}}, as read, and the codec of its
 * data: {@code machineId}, {@code time} (the holder's clock at its last report), {@code until} (its lease end: it issues
 * only before it), {@code process}, and {@code closed=true} after a clean close or {@code released=true} after an
 * operator ended the lease.
 */
record ZooKeeperNode(String path, String owner, long sequence, long machineId, long time, long until, boolean closed,
        int version, long mtime, boolean released, byte[] data) {

    static final byte[] EMPTY = new byte[0];
    private static final Pattern SEQUENCE = Pattern.compile("\\d{10}");

    /** Every node under {@code foreverPath}; the machine ID of one created a moment ago is its sequence's block. */
    static List<ZooKeeperNode> readAll(CuratorFramework client, String foreverPath, MachineIdRange range, int blockSize,
            long holdMillis) throws Exception {
        List<ZooKeeperNode> nodes = new ArrayList<>();
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
            nodes.add(new ZooKeeperNode(path, child.substring(0, dash), sequence, id,
                    Long.parseLong(fields.getProperty("time", "0")), untilOf(fields, holdMillis),
                    Boolean.parseBoolean(fields.getProperty("closed")), stat.getVersion(), stat.getMtime(),
                    Boolean.parseBoolean(fields.getProperty("released")), data));
        }
        return nodes;
    }

    static byte[] encode(long id, long time, long until, boolean wasClosed, String process) {
        String text = (id >= 0 ? "machineId=" + id + "\n" : "") + "time=" + time + "\nuntil=" + until + "\nprocess="
                + process + "\n" + (wasClosed ? "closed=true\n" : "");
        return text.getBytes(StandardCharsets.UTF_8);
    }

    /** This node's data with {@code released=true} added and everything else kept, {@code until} included. */
    byte[] releasedData() {
        return (new String(data, StandardCharsets.UTF_8) + "released=true\n").getBytes(StandardCharsets.UTF_8);
    }

    static Properties decode(byte[] data) {
        Properties fields = new Properties();
        try {
            fields.load(new StringReader(new String(data == null ? EMPTY : data, StandardCharsets.UTF_8)));
        } catch (IOException e) {
            throw new IllegalStateException(e); // a StringReader does not fail
        }
        return fields;
    }

    /**
     * What a node's (or the cache's) fields say its holder may have issued up to: IDs before {@code until}. A
     * record written before leases were recorded has none: after a clean close its IDs end with its time, else
     * its holder could issue for half of reclaimAfter ({@code holdMillis}) after its report.
     */
    static long untilOf(Properties fields, long holdMillis) {
        String until = fields.getProperty("until");
        if (until != null) {
            return Long.parseLong(until);
        }
        long time = Long.parseLong(fields.getProperty("time", "0"));
        return Boolean.parseBoolean(fields.getProperty("closed")) ? time + 1 : time + holdMillis;
    }
}
