package io.vesta.machine.etcd;

import io.etcd.jetcd.Client;
import io.vesta.machine.MachineIdProvider;
import io.vesta.test.etcd.EtcdCluster;
import io.vesta.test.lease.MachineIdLeaseContract;
import io.vesta.test.lease.TcpRelay;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * The lease contract on the suite's etcd member ({@code VESTA_TEST_ETCD_ENDPOINTS}), each test under a prefix of its
 * own; every node reaches it through a relay that can stall and lose replies. etcd loses no acknowledged write while a
 * quorum survives, so it cannot restart empty; a restore from a snapshot is an operator's act it can have: the
 * relay then leads to a member of the test's own restored from a snapshot of the suite's (a new cluster ID).
 */
class EtcdLeaseContractTests extends MachineIdLeaseContract {

    private static final java.util.logging.Logger QUIET = java.util.logging.Logger.getLogger("io.vesta.machine");

    static {
        QUIET.setLevel(java.util.logging.Level.SEVERE);
    }

    private TcpRelay relay;
    private Client client;
    private String prefix;
    private Path dir;
    private EtcdCluster restored;

    @Override
    protected void openStore() throws Exception {
        URI suite = EtcdTestSupport.endpoints().get(0);
        relay = new TcpRelay(suite.getHost(), suite.getPort());
        client = Client.builder().endpoints(URI.create("http://127.0.0.1:" + relay.port())).build();
        prefix = EtcdTestSupport.prefix("contract");
        EtcdTestSupport.markStore(client, prefix);
    }

    @Override
    protected void closeStore() throws Exception {
        if (client != null) {
            client.close();
        }
        if (relay != null) {
            relay.close();
        }
        if (restored != null) {
            restored.close();
        }
    }

    @Override
    protected MachineIdProvider provider(Node node) {
        return EtcdMachineIdProvider.builder(client).prefix(prefix).owner(node.owner()).lease(node.lease())
                .heartbeat(node.renewal()).timeSource(node.timeSource()).build();
    }

    /** {@code max-clock-skew}, 1 s by default. */
    @Override
    protected Duration documentedClockBound() {
        return EtcdMachineIdProvider.DEFAULT_MAX_CLOCK_SKEW;
    }

    @Override
    protected AutoCloseable stall() {
        return relay.stall();
    }

    /**
     * The relay's lost replies; the fault ends once the client reached etcd again. gRPC reconnects with a backoff
     * (1 s, growing) after the failed handshakes of the fault, where Lettuce reconnects at once: meanwhile a request
     * times out, as after any network fault, and a claim then fails and is tried again by the caller.
     */
    @Override
    protected AutoCloseable loseReplies() {
        AutoCloseable lost = relay.loseReplies();
        return () -> {
            lost.close();
            io.vesta.test.Await.until("the etcd client reconnected", Duration.ofSeconds(20), () -> {
                try {
                    EtcdTestSupport.clusterId(client);
                    return true;
                } catch (Exception notYet) {
                    return false;
                }
            });
        };
    }

    @Override
    protected void restartEmpty() {
        notSupported("restart empty", "etcd acknowledges a write once a quorum has logged it; a cluster recreated"
                + " empty is another store, outside the documented loss model (a restore from a snapshot is in it)");
    }

    /**
     * {@code etcdctl snapshot save} of the suite's member; the roll-back restores it into a fresh single member of the
     * test's own (a new cluster ID) and leads the relay there.
     */
    @Override
    protected Snapshot snapshot() throws Exception {
        dir = Files.createTempDirectory("vesta-etcd-contract");
        restored = EtcdCluster.start(dir, 1);
        Path file = dir.resolve("snapshot.db");
        EtcdCluster.saveSnapshot(restored.etcdctl(), EtcdTestSupport.endpoints().get(0), file);
        return () -> {
            restored.kill(0);
            restored.restore(file);
            relay.redirect(restored.endpoint(0).getPort());
        };
    }
}
