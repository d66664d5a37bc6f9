package io.vesta.machine.etcd;

import io.etcd.jetcd.Client;
import io.vesta.machine.MachineIdProvider;
import io.vesta.machine.MachineIdRange;
import io.vesta.test.etcd.EtcdCluster;
import io.vesta.test.lease.FallbackScenario;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The fallback machine ID on a single etcd member of the test's own, which the test stops and starts again on the same
 * ports and data ({@link FallbackScenario}): etcd down at start-up, and etcd lost past the lease of a node that held
 * one; no ID twice. A lease of 3 s renewed every second.
 */
class EtcdFallbackTests {

    @TempDir
    Path dir;

    private EtcdCluster etcd;
    private Client client;
    private FallbackScenario scenario;
    private final String prefix = EtcdTestSupport.prefix("fallback");

    @BeforeEach
    void start() throws Exception {
        etcd = EtcdCluster.start(dir.resolve("etcd"), 1);
        client = Client.builder().endpoints(etcd.endpoints()).build();
        EtcdTestSupport.markStore(client, prefix);
        scenario = new FallbackScenario(new FallbackScenario.Store() {
            @Override
            public MachineIdProvider provider() {
                return EtcdMachineIdProvider.builder(etcd.endpoints()).prefix(prefix).owner("node-a")
                        .lease(Duration.ofSeconds(3)).heartbeat(Duration.ofSeconds(1)).build();
            }

            @Override
            public void cut() throws Exception {
                etcd.stop(0);
            }

            @Override
            public void restore() throws Exception {
                etcd.start(0);
                etcd.awaitReady();
            }
        }, new MachineIdRange(0, 1015), 1016, dir.resolve("marks"));
    }

    @AfterEach
    void stop() throws Exception {
        if (scenario != null) {
            scenario.close();
        }
        if (client != null) {
            client.close();
        }
        if (etcd != null) {
            etcd.close();
        }
    }

    @Test
    void aNodeThatCannotReachEtcdAtStartUpIssuesUnderItsFallbackThenUnderALease() throws Exception {
        scenario.storeDownAtStartUp();
        assertThat(EtcdTestSupport.get(client, prefix + "0000")).as("the lease in etcd").contains("|node-a");
    }

    @Test
    void aNodeThatLosesEtcdPastItsLeaseIssuesUnderItsFallbackThenUnderALeaseAgain() throws Exception {
        scenario.storeLostMidRun();
        assertThat(EtcdTestSupport.get(client, prefix + "0000")).as("the lease in etcd").contains("|node-a");
    }
}
