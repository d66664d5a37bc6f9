package io.vesta.machine.zookeeper;

import io.vesta.machine.MachineIdProvider;
import io.vesta.machine.MachineIdRange;
import io.vesta.test.lease.FallbackScenario;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The fallback machine ID on a real ZooKeeper (curator-test on 127.0.0.1), stopped and restarted on the same port with
 * its data ({@link FallbackScenario}): ZooKeeper down at start-up (no machine ID cached), and lost past the lease of a
 * node that held one; no ID twice. A namespace of its own; reports every 100 ms, reclaim after 1 s (a lease of 500 ms).
 */
class ZooKeeperFallbackTests {

    @TempDir
    Path dir;
    private TestingServer server;
    private FallbackScenario scenario;

    @BeforeEach
    void start() throws Exception {
        server = new TestingServer(new InstanceSpec(null, -1, -1, -1, true, -1, -1, -1, null, "127.0.0.1"), true);
        String namespace = "fallback-" + Long.toHexString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE);
        scenario = new FallbackScenario(new FallbackScenario.Store() {
            @Override
            public MachineIdProvider provider() {
                return ZooKeeperMachineIdProvider.builder(server.getConnectString()).namespace(namespace)
                        .owner("10.0.0.1:8080").reportInterval(Duration.ofMillis(100)).reclaimAfter(Duration.ofSeconds(1))
                        .connectionTimeout(Duration.ofSeconds(3)).cacheFile(dir.resolve("node.machine-id")).build();
            }

            @Override
            public void cut() throws Exception {
                server.stop();
            }

            @Override
            public void restore() throws Exception {
                server.restart();
            }
        }, new MachineIdRange(0, 1015), 1016, dir.resolve("marks"));
    }

    @AfterEach
    void stop() throws Exception {
        if (scenario != null) {
            scenario.close();
        }
        server.close();
    }

    @Test
    void aNodeThatCannotReachZooKeeperAtStartUpIssuesUnderItsFallbackThenUnderALease() throws Exception {
        scenario.storeDownAtStartUp();
    }

    @Test
    void aNodeThatLosesZooKeeperPastItsLeaseIssuesUnderItsFallbackThenUnderALeaseAgain() throws Exception {
        scenario.storeLostMidRun();
    }
}
