package io.vesta.machine.zookeeper;

import io.vesta.machine.MachineIdProvider;
import io.vesta.test.lease.MachineIdLeaseContract;
import io.vesta.test.lease.TcpRelay;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The lease contract on a ZooKeeper test server, each test in a namespace of its own; every node reaches it through a
 * relay that can stall and lose replies. ZooKeeper acknowledges a write only once a quorum has logged it, so it cannot
 * restart empty or roll back.
 *
 * <p>Three things of ZooKeeper's documented model differ from a database's or Redis's leases, and the hooks say so:
 * an owner's node is its own after it closed and after its lease ran out (Leaf-style: a restart gets the same ID
 * back), until it went {@code reclaimAfter} without a report by the ZooKeeper leader's clock or an operator ended its
 * lease ({@link #blocksStayWithTheirOwner()}); a namespace has one range and block size
 * ({@link #mixesRangesAndBlockSizes()}), whose blocks go to sequences in the order of the range it was first used with
 * (it records that too); and the start-up clock check measures how long ago the others reported by
 * the leader's clock too, which the contract's manual clocks do not move ({@link #MAX_CLOCK_DIFFERENCE}).
 */
class ZooKeeperLeaseContractTests extends MachineIdLeaseContract {

    private static final java.util.logging.Logger QUIET = java.util.logging.Logger.getLogger("io.vesta.machine");

    static {
        QUIET.setLevel(java.util.logging.Level.SEVERE);
    }

    /**
     * The {@code maxClockDifference} of the contract's nodes, and so its documented bound: 10 minutes, not the default
     * 5 s. The contract moves its manual clocks by up to two leases (2 minutes) within milliseconds of real time, while
     * nodes that do not renew keep their last report. The start-up check compares a node's clock with each other live
     * node's last reported time moved on by how long ago the ZooKeeper leader received it, by the leader's clock, which
     * those moves do not advance: to it, such a move is a clock that far ahead, and it cannot tell the two apart.
     * The check itself, with the default, is {@code ZooKeeperMachineIdProviderTests}'s.
     */
    private static final Duration MAX_CLOCK_DIFFERENCE = Duration.ofMinutes(10);

    private TestingServer server;
    private TcpRelay relay;
    private String namespace;

    @Override
    protected void openStore() throws Exception {
        server = new TestingServer(new InstanceSpec(null, -1, -1, -1, true, -1, -1, -1, null, "127.0.0.1"), true);
        relay = new TcpRelay("127.0.0.1", server.getPort());
        namespace = "contract" + Long.toHexString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE);
    }

    @Override
    protected void closeStore() throws Exception {
        if (relay != null) {
            relay.close();
        }
        if (server != null) {
            server.close();
        }
    }

    @Override
    protected MachineIdProvider provider(Node node) {
        return ZooKeeperMachineIdProvider.builder("127.0.0.1:" + relay.port()).namespace(namespace).owner(node.owner())
                .lease(node.lease()).reportInterval(node.renewal()).maxClockDifference(MAX_CLOCK_DIFFERENCE)
                .reclaimAfter(max(node.lease().multipliedBy(2), node.renewal().multipliedBy(10)))
                .timeSource(node.timeSource()).build();
    }

    private static Duration max(Duration a, Duration b) {
        return a.compareTo(b) >= 0 ? a : b;
    }

    @Override
    protected Duration fastRenewal() {
        return Duration.ofMillis(100);
    }

    /** {@code maxClockDifference}: {@link #MAX_CLOCK_DIFFERENCE} here. */
    @Override
    protected Duration documentedClockBound() {
        return MAX_CLOCK_DIFFERENCE;
    }

    /**
     * {@code true}: an owner's node stays its own after a clean close (its restart gets the same ID back, from the
     * cache if ZooKeeper is down) and after its lease ran out. Another owner reclaims it only once the range is used up
     * and the node went {@code reclaimAfter} without a report, by the ZooKeeper leader's clock (at least twice the
     * lease, here 2 minutes of real time, so never within a test), or once an operator ended its lease. So the
     * contract hands blocks over by the operator's end here, and the race of a renewal with a takeover never sees a
     * takeover.
     */
    @Override
    protected boolean blocksStayWithTheirOwner() {
        return true;
    }

    /**
     * {@code false}: a namespace records one layout (range start or top block, order, block size), and refuses a node
     * with another.
     */
    @Override
    protected boolean mixesRangesAndBlockSizes() {
        return false;
    }

    @Override
    protected AutoCloseable stall() {
        return relay.stall();
    }

    @Override
    protected AutoCloseable loseReplies() {
        return relay.loseReplies();
    }

    @Override
    protected void restartEmpty() {
        notSupported("restart empty", "ZooKeeper acknowledges a write once a quorum has logged it");
    }

    @Override
    protected Snapshot snapshot() {
        return notSupported("roll back to a snapshot", "ZooKeeper acknowledges a write once a quorum has logged it, and"
                + " restoring a snapshot under running nodes is an operator's act outside the documented loss model");
    }
}
