package io.vesta.machine.zookeeper;

import io.vesta.layout.IdLayout;
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
import java.util.List;
import java.util.Properties;
import java.util.regex.Pattern;

/**
 * An owner's node under {@code /vesta/{namespace}/forever}, {@code {owner}-{sequence}}, as read, and the codec of the
 * namespace's nodes. An owner's node holds {@code machineId}, {@code time} (the holder's clock at its last report),
 * {@code until} (its lease end: it issues only before it), {@code process}, and {@code closed=true} after a clean close
 * or {@code released=true} after an operator ended the lease. The namespace node {@code /vesta/{namespace}} records the
 * {@link Layout}, how sequences map to blocks of machine IDs: two mappings in one namespace could give two sequences
 * overlapping IDs.
 */
record ZooKeeperNode(String path, String owner, long sequence, long machineId, long time, long until, String process,
        boolean closed, boolean released, int version, long mtime, byte[] data) {

    static final byte[] EMPTY = new byte[0];
    private static final Pattern SEQUENCE = Pattern.compile("\\d{10}");

    /**
     * How a namespace maps node sequences to blocks of machine IDs, the one mapping every node of it uses (registration,
     * reclaim, the lease admin): ascending, sequence {@code s} holds the block starting at {@code anchor + s * blockSize}
     * (the range start, as before ranges had an order); descending, the block starting at {@code anchor - s *
     * blockSize}, where {@code anchor} is the first machine ID of the range's top whole block (blocks aligned from the
     * range's min), so that servers get 1023, 1022, ...
     *
     * <p>Recorded in the namespace node as {@code rangeStart=A} (ascending, byte for byte what nodes wrote before
     * orders existed) or {@code order=descending}, {@code topBlockStart=T}, each followed by {@code blockSize=k} when
     * {@code k > 1}. A descending layout has no {@code rangeStart}: a node of a version before orders refuses it
     * (its parse requires {@code rangeStart}, and its registration refuses any record other than its own) instead of
     * reading it as ascending.
     */
    record Layout(MachineIdRange.Order order, long anchor, int blockSize) {

        /** The layout a namespace first used by a node with {@code range} and {@code blockSize} records. */
        static Layout of(MachineIdRange range, int blockSize) {
            if (range.order() == MachineIdRange.Order.ASCENDING) {
                return new Layout(range.order(), range.min(), blockSize);
            }
            if (range.blocks(blockSize) == 0) {
                throw new IllegalArgumentException("A block of " + blockSize + " does not fit in range " + range);
            }
            return new Layout(range.order(), range.blockStart(range.blockInOrder(0, blockSize), blockSize), blockSize);
        }

        /** Every machine ID the mapping can reach, in its order: whatever range a node of the namespace has. */
        MachineIdRange reach() {
            return order == MachineIdRange.Order.ASCENDING
                    ? new MachineIdRange(anchor, IdLayout.MAX_MACHINE, order)
                    : new MachineIdRange(anchor % blockSize, anchor + blockSize - 1, order);
        }

        /**
         * The first machine ID of the block {@code sequence} holds, or -1 once the sequence has passed the end of
         * {@code range} (in its order): the one mapping from sequence to machine ID.
         * @param range the registering node's range, which {@link #mismatch} found agrees with this layout, or
         *        {@link #reach()} for every block the namespace can hand out
         */
        long firstOf(long sequence, MachineIdRange range) {
            MachineIdRange reach = reach();
            if (sequence < 0 || sequence >= reach.blocks(blockSize)) {
                return -1;
            }
            long first = reach.blockStart(reach.blockInOrder(sequence, blockSize), blockSize);
            return range.holdsBlock(first, blockSize) ? first : -1;
        }

        /**
         * What of a node's configured {@code range} and {@code blockSize} disagrees with this recorded layout, naming
         * the setting, the recorded and the configured value; null when the node may use it. A node with a descending
         * range may use an ascending layout with its range start (one recorded before ranges had an order): a
         * namespace keeps its recorded order.
         */
        String mismatch(MachineIdRange range, int blockSize) {
            if (blockSize != this.blockSize) {
                return "the block size: recorded " + this.blockSize + ", configured " + blockSize;
            }
            if (order == MachineIdRange.Order.ASCENDING) {
                return anchor == range.min() ? null
                        : "the range start (min): recorded " + anchor + ", configured " + range.min();
            }
            if (range.order() != order) {
                return "the range's order: recorded " + describe(order) + ", configured " + describe(range.order());
            }
            long top = range.blocks(blockSize) == 0 ? -1 : of(range, blockSize).anchor();
            return top == anchor ? null : "the first machine ID of the range's top whole block (from its max, and its"
                    + " min, from which blocks are aligned): recorded " + anchor + ", configured " + top;
        }

        static String describe(MachineIdRange.Order order) {
            return order == MachineIdRange.Order.ASCENDING ? "ascending (from the range start up)"
                    : "descending (from the top whole block down)";
        }

        byte[] encode() {
            String anchorField = order == MachineIdRange.Order.ASCENDING ? "rangeStart=" + anchor + "\n"
                    : "order=descending\ntopBlockStart=" + anchor + "\n";
            // Single IDs record no block size, as before blocks existed, so that older nodes can read it.
            return (anchorField + (blockSize == 1 ? "" : "blockSize=" + blockSize + "\n")).getBytes(StandardCharsets.UTF_8);
        }

        /**
         * The layout {@code recorded} in the namespace node {@code where}: no {@code order} is ascending.
         * @throws IllegalStateException when it records no layout this version knows
         */
        static Layout decode(byte[] recorded, String where) {
            Properties fields = ZooKeeperNode.decode(recorded);
            String order = fields.getProperty("order");
            try {
                int blockSize = Integer.parseInt(fields.getProperty("blockSize", "1").strip());
                Layout layout = order == null
                        ? new Layout(MachineIdRange.Order.ASCENDING, Long.parseLong(fields.getProperty("rangeStart").strip()),
                                blockSize)
                        : order.strip().equals("descending") && fields.getProperty("rangeStart") == null
                                ? new Layout(MachineIdRange.Order.DESCENDING,
                                        Long.parseLong(fields.getProperty("topBlockStart").strip()), blockSize)
                                : null;
                if (layout != null && MachineIdRange.isBlockSize(blockSize) && layout.anchor() >= 0
                        && layout.anchor() + blockSize - 1 <= IdLayout.MAX_MACHINE) {
                    return layout;
                }
            } catch (NullPointerException | NumberFormatException e) {
                // refused below
            }
            throw new IllegalStateException("The namespace node " + where + " does not record a layout this version"
                    + " knows (rangeStart=<machine ID>, or order=descending and topBlockStart=<machine ID>; blockSize="
                    + MachineIdRange.BLOCK_SIZES + "): " + oneLine(recorded));
        }
    }

    /**
     * Every node under {@code foreverPath}; the machine ID of one created a moment ago is its sequence's block by
     * {@code layout} within {@code range}, or -1 past its end.
     */
    static List<ZooKeeperNode> readAll(CuratorFramework client, String foreverPath, Layout layout, MachineIdRange range,
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
            long id = recorded >= 0 ? recorded : layout.firstOf(sequence, range);
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

    /** What the namespace node records, or null before any node registered. */
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
        return Layout.decode(recorded, namespacePath);
    }

    /**
     * Records the layout of {@code range} and {@code blockSize} in the namespace node unless it holds one already, and
     * creates the parent of the owners' nodes.
     * @return the namespace's layout, by which this node maps sequences to machine IDs
     * @throws IllegalArgumentException when the namespace records a layout this node's range or block size disagrees
     *         with (see {@link Layout#mismatch})
     */
    static Layout ensureLayout(CuratorFramework client, String namespace, String namespacePath, String foreverPath,
            MachineIdRange range, int blockSize) throws Exception {
        Layout layout = Layout.of(range, blockSize);
        byte[] mine = layout.encode();
        try {
            client.create().creatingParentsIfNeeded().forPath(namespacePath, mine);
        } catch (KeeperException.NodeExistsException e) {
            byte[] recorded = client.getData().forPath(namespacePath);
            if (recorded.length == 0) {
                client.setData().withVersion(0).forPath(namespacePath, mine);
            } else {
                layout = Layout.decode(recorded, namespacePath);
                String mismatch = layout.mismatch(range, blockSize);
                if (mismatch != null) {
                    throw new IllegalArgumentException("namespace '" + namespace + "' assigns machine IDs as "
                            + oneLine(recorded) + " (recorded in " + namespacePath + "), but this node's range is "
                            + range + " " + range.order().name().toLowerCase(java.util.Locale.ROOT) + " with block size "
                            + blockSize + ", which differs in " + mismatch + "; give each range, order and block size a"
                            + " namespace of its own");
                }
            }
        }
        try {
            client.create().forPath(foreverPath, EMPTY);
        } catch (KeeperException.NodeExistsException e) {
            // created by another node
        }
        return layout;
    }

    private static String oneLine(byte[] recorded) {
        return new String(recorded, StandardCharsets.UTF_8).strip().replace('\n', ' ');
    }
}
