package io.vesta.server;

import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/** vesta-server on the zookeeper strategy is configuration only: Curator is in the jar. A real ZooKeeper (curator-test). */
class ZooKeeperServerTests {

    @TempDir
    Path dir;

    @Test
    void theServerTakesItsMachineIdFromZooKeeperAndListsTheNamespace() throws Exception {
        String namespace = "server-test-" + UUID.randomUUID().toString().substring(0, 8);
        try (TestingServer zookeeper = new TestingServer(new InstanceSpec(null, -1, -1, -1, true, -1, -1, -1, null,
                "127.0.0.1"), true);
                ConfigurableApplicationContext server = new SpringApplicationBuilder(VestaServerApplication.class).run(
                        "--server.port=0", "--vesta.server.data-dir=" + dir, "--vesta.machine-id.strategy=zookeeper",
                        "--vesta.machine-id.zookeeper.connect-string=" + zookeeper.getConnectString(),
                        "--vesta.machine-id.zookeeper.namespace=" + namespace,
                        "--vesta.machine-id.zookeeper.owner=zk-server-test",
                        "--vesta.machine-id.zookeeper.cache-file=" + dir.resolve("machine-id.cache"))) {
            String base = "http://127.0.0.1:" + server.getEnvironment().getRequiredProperty("local.server.port");
            HttpClient http = HttpClient.newHttpClient();

            String readiness = http.send(HttpRequest.newBuilder(URI.create(base + "/actuator/health/readiness")).build(),
                    HttpResponse.BodyHandlers.ofString()).body();
            String leases = http.send(HttpRequest.newBuilder(URI.create(base + "/vesta/admin/leases")).build(),
                    HttpResponse.BodyHandlers.ofString()).body();

            assertThat(readiness).contains("\"status\":\"UP\"").contains("\"machineIdSource\":\"zookeeper (/vesta/" + namespace);
            assertThat(leases).contains("\"store\":\"zookeeper /vesta/" + namespace + "/forever\"")
                    // A server counts down from the top of its range in a namespace it created.
                    .contains("{\"machineId\":1023,\"state\":\"live\",\"live\":true,\"self\":true,\"owner\":\"zk-server-test\"")
                    .contains("{\"machineId\":1022,\"state\":\"free\"");
        }
    }
}
