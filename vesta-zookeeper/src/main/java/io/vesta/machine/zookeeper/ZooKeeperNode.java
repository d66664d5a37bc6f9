package io.vesta.machine.zookeeper;

import io.vesta.machine.MachineIdRange;
import io.vesta.machine.MachineIdUnavailableException;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;

import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;
import java.util.regex.Pattern;

/**
 * An owner's node under {@code /vesta/{namespace}/forever}, {@code {owner}-{sequence}}, as read, and the codec of the
 * namespace's nodes. An owner's node holds {@code machineId}, {@code time} (the holder's clock at its last report),
 * {@code until} (its lease end: it issues only before it), {@code process}, and {@code closed=true} after a clean close
 * or {@code released=true} after an operator ended the lease. The namespace node {@code /vesta/{namespace}} records the
 * range start and block size: machine IDs are sequence blocks from the range start, so two starts or two block sizes in
 * one namespace could map two sequences to overlapping IDs.
 */
record ZooKeeperNode(String path, String owner, long sequence, long machineId, long time, long until, String process,
        boolean closed, boolean released, int version, long mtime, byte[] data) {

    static final byte[] EMPTY = new byte[0];
    private static final Pattern SEQUENCE = Pattern.compile("\\d{10}");

    /** What a namespace records: the start of the range it assigns machine IDs from, and its block size. */
    record Layout(long rangeStart, int blockSize) {
    }

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
            long id = recorded >= 0 ? recorded
                    : sequence < range.blocks(blockSize) ? range.blockStart(sequence, blockSize) : -1;
            nodes.add(new ZooKeeperNode(path, child.substring(0, dash), sequence, id,
                    Long.parseLong(fields.getProperty("time", "0")), untilOf(fields, holdMillis),
                    fields.getProperty("process"), Boolean.parseBoolean(fields.getProperty("closed")),
                    Boolean.parseBoolean(fields.getProperty("released")), stat.getVersion(), stat.getMtime(), data));
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
     * What a node's (or the cache's) fields say its holder may have issued up to: IDs before {@code until}. A record
     * written before leases were recorded has none: after a clean close its IDs end with its time, else its holder
     * could issue for half of reclaimAfter ({@code holdMillis}) after its report.
     */
    static long untilOf(Properties fields, long holdMillis) {
        String until = fields.getProperty("until");
        if (until != null) {
            return Long.parseLong(until);
        }
        long time = Long.parseLong(fields.getProperty("time", "0"));
        return Boolean.parseBoolean(fields.getProperty("closed")) ? time + 1 : time + holdMillis;
    }

    /** A start-up refused because this node's clock reads {@code now}, behind the {@code time} it last reported. */
    static MachineIdUnavailableException clockBehind(long now, long time, String reported, String where) {
        return new MachineIdUnavailableException("This node's clock reads " + Instant.ofEpochMilli(now) + ", "
                + (time - now) + " ms behind the time it last reported" + reported + ", " + Instant.ofEpochMilli(time)
                + " (" + where + "): the clock was set back, and IDs issued before could repeat. Fix the clock, or"
                + " start once it has passed that time.");
    }

    /** What the namespace node records, or null before any node registered; no block size means single IDs. */
    static Layout readLayout(CuratorFramework client, String namespacePath) throws Exception {
        byte[] recorded;
        try {
            recorded = client.getData().forPath(namespacePath);
        } catch (KeeperException.NoNodeException e) {
            return null;
        }
        if (recorded == null || recorded.length == 0) {
            return null;
        }
        Properties fields = decode(recorded);
        try {
            return new Layout(Long.parseLong(fields.getProperty("rangeStart").strip()),
                    Integer.parseInt(fields.getProperty("blockSize", "1").strip()));
        } catch (NullPointerException | NumberFormatException e) {
            throw new IllegalStateException("The namespace node " + namespacePath + " does not record a range start and"
                    + " block size: " + oneLine(recorded), e);
        }
    }

    /**
     * Records {@code range} and {@code blockSize} in the namespace node unless it holds them already, and creates the
     * parent of the owners' nodes.
     * @throws IllegalArgumentException when the namespace records another range start or block size
     */
    static void ensureLayout(CuratorFramework client, String namespace, String namespacePath, String foreverPath,
            MachineIdRange range, int blockSize) throws Exception {
        // Single IDs record only the range start, as before blocks existed, so that older nodes can read it.
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
                        + oneLine(recorded) + " (recorded in " + namespacePath + "), but this node's range is " + range
                        + " with block size " + blockSize + "; give each range and block size a namespace of its own");
            }
        }
        try {
            client.create().forPath(foreverPath, EMPTY);
        } catch (KeeperException.NodeExistsException e) {
            // created by another node
        }
    }

    private static String oneLine(byte[] recorded) {
        return new String(recorded, StandardCharsets.UTF_8).strip().replace('\n', ' ');
    }
}
