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
 */
class ZooKeeperLeaseContractTest extends MachineIdLeaseContract {

    private static final java.util.logging.Logger QUIET = java.util.logging.Logger.getLogger("io.vesta.machine");

    static {
        QUIET.setLevel(java.util.logging.Level.SEVERE);
    }

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
                .lease(node.lease()).reportInterval(node.renewal())
                .reclaimAfter(max(node.lease().multipliedBy(2), node.renewal().multipliedBy(10))).timeSource(node.timeSource()).build();
    }

    private static Duration max(Duration a, Duration b) {
        return a.compareTo(b) >= 0 ? a : b;
    }

    @Override
    protected Duration fastRenewal() {
        return Duration.ofMillis(100);
    }

    /** {@code maxClockDifference}, 5 s by default. */
    @Override
    protected Duration documentedClockBound() {
        return ZooKeeperMachineIdProvider.DEFAULT_MAX_CLOCK_DIFFERENCE;
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
