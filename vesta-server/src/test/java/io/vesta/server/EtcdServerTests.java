package io.vesta.server;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.options.DeleteOption;
import io.vesta.machine.MachineIdLease;
import io.vesta.machine.MachineIdRange;
import io.vesta.machine.etcd.EtcdMachineIdProvider;
import io.vesta.test.Await;
import io.vesta.test.TestVariables;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * vesta-server on the etcd strategy is configuration only: jetcd is in the jar. On the suite's etcd member
 * ({@code VESTA_TEST_ETCD_ENDPOINTS}) under a prefix of its own, beside a live lease of another node made by a provider
 * of the test's: the server leases the top of the server range, lists the prefix's keys to an admin token only, ends
 * the other node's lease only by force (which stops that node at its next renewal), never its own, and releases its
 * own on stop.
 */
class EtcdServerTests {

    static final String CLIENT = "etcd-client-token-0123456789";
    static final String ADMIN = "etcd-admin-token-9876543210";

    @TempDir
    Path dir;

    private final HttpClient http = HttpClient.newHttpClient();

    @Test
    void theServerLeasesFromEtcdListsThePrefixAndEndsAnotherNodesLeaseThroughTheAdminEndpoint() throws Exception {
        List<URI> endpoints = TestVariables.etcdEndpoints();
        String prefix = "/vesta-server-test/" + UUID.randomUUID() + "/";
        try (Client etcd = Client.builder().endpoints(endpoints).build()) {
            markAsInUse(etcd, prefix);
            try (ConfigurableApplicationContext server = new SpringApplicationBuilder(VestaServerApplication.class).run(
                    "--server.port=0", "--server.address=127.0.0.1", "--vesta.server.data-dir=" + dir,
                    "--vesta.machine-id.strategy=etcd",
                    "--vesta.machine-id.etcd.endpoints=" + endpoints.stream().map(URI::toString).collect(Collectors.joining(",")),
                    "--vesta.machine-id.etcd.prefix=" + prefix, "--vesta.machine-id.etcd.owner=etcd-server-test",
                    "--vesta.server.tokens=" + CLIENT, "--vesta.server.admin-tokens=" + ADMIN,
                    "--vesta.server.lease-admin-enabled=true");
                    // Another server's lease, live, on the next machine ID down: a provider of the test's own.
                    EtcdMachineIdProvider other = EtcdMachineIdProvider.builder(endpoints).prefix(prefix)
                            .owner("other-node").lease(Duration.ofSeconds(3)).heartbeat(Duration.ofSeconds(1)).build()) {
                String base = "http://127.0.0.1:" + server.getEnvironment().getRequiredProperty("local.server.port");
                assertThat(other.acquire(MachineIdRange.SERVER)).isEqualTo(1022);

                assertThat(get(base + "/actuator/health/readiness", ADMIN).body()).contains("\"status\":\"UP\"")
                        .contains("\"machineIdSource\":\"etcd (prefix " + prefix);
                HttpResponse<String> leases = get(base + "/vesta/admin/leases", ADMIN);
                assertThat(leases.statusCode()).as(leases.body()).isEqualTo(200);
                assertThat(leases.body()).contains("\"store\":\"etcd prefix " + prefix + " at " + endpoints)
                        .contains("\"range\":\"924-1023\"")
                        // A server leases from the top of the server range down.
                        .contains("{\"machineId\":1023,\"state\":\"live\",\"live\":true,\"self\":true,\"owner\":\"etcd-server-test\"")
                        .contains("{\"machineId\":1022,\"state\":\"live\",\"live\":true,\"self\":false,\"owner\":\"other-node\"")
                        .contains("{\"machineId\":1021,\"state\":\"free\"");
                assertThat(get(base + "/vesta/admin/leases?range=embedded", ADMIN).body()).contains("\"range\":\"0-923\"");
                assertThat(get(base + "/vesta/genid", CLIENT).body()).startsWith("{\"id\":");

                // Operators only, and only on the path in its normal form.
                assertThat(get(base + "/vesta/admin/leases", null).statusCode()).isEqualTo(401);
                assertThat(get(base + "/vesta/admin/leases", "not-a-token-of-this-server-0000").statusCode()).isEqualTo(401);
                assertThat(get(base + "/vesta/admin/leases", CLIENT).statusCode()).isEqualTo(403);
                assertThat(get(base + "/%76esta/admin/leases", ADMIN).statusCode()).isEqualTo(400);
                assertThat(get(base + "/vesta;x/admin/leases", ADMIN).statusCode()).isEqualTo(400);
                assertThat(get(base + "/vesta/Admin/leases", CLIENT).statusCode()).as("asks for the admin token").isEqualTo(403);
                assertThat(delete(base + "/vesta/admin/leases/1022?force=true", CLIENT).statusCode()).isEqualTo(403);
                assertThat(delete(base + "/vesta;x/admin/leases/1022?force=true", ADMIN).statusCode()).isEqualTo(400);
                assertThat(delete(base + "/vesta/admin/leases/1022?force=true", null).statusCode()).isEqualTo(401);

                HttpResponse<String> refused = delete(base + "/vesta/admin/leases/1022", ADMIN);
                assertThat(refused.statusCode()).as(refused.body()).isEqualTo(409);
                assertThat(refused.body()).contains("\"reason\":\"live\"").contains("owner 'other-node'");
                assertThat(delete(base + "/vesta/admin/leases/1023?force=true", ADMIN).body()).contains("\"reason\":\"own\"");
                assertThat(delete(base + "/vesta/admin/leases/1000", ADMIN).statusCode()).isEqualTo(404);
                long generation = Long.parseLong(entry(etcd, prefix, 1022)[0]);
                MachineIdLease othersLease = other.lease();

                HttpResponse<String> forced = delete(base + "/vesta/admin/leases/1022?force=true", ADMIN);

                assertThat(forced.statusCode()).as(forced.body()).isEqualTo(200);
                assertThat(forced.body()).contains("\"ended\":true")
                        .contains("\"after\":{\"machineId\":1022,\"state\":\"expired\"");
                String[] ended = entry(etcd, prefix, 1022);
                assertThat(Long.parseLong(ended[0])).as("the next generation").isEqualTo(generation + 1);
                assertThat(Long.parseLong(ended[1])).as("lease expiry now").isLessThanOrEqualTo(System.currentTimeMillis());
                assertThat(ended[4]).isEqualTo("other-node");
                // The other node, still running, finds its key changed at its next renewal and stops issuing.
                Await.until("the other node's renewal to fail", Duration.ofSeconds(10), othersLease::isEnded);
                assertThat(get(base + "/vesta/admin/leases", ADMIN).body())
                        .contains("{\"machineId\":1022,\"state\":\"expired\"");
            }
            assertThat(Long.parseLong(entry(etcd, prefix, 1023)[1])).as("released on stop")
                    .isLessThanOrEqualTo(System.currentTimeMillis());
            remove(etcd, prefix);
        }
    }

    /**
     * {@code prefix} as a running fleet leaves it: claimed on this cluster before, settled long ago. On a prefix without
     * that store mark, which a restore from a snapshot could have emptied, the first claim waits out a lease.
     */
    static void markAsInUse(Client etcd, String prefix) throws Exception {
        String cluster = Long.toHexString(etcd.getKVClient().get(bytes(prefix)).get(10, TimeUnit.SECONDS).getHeader()
                .getClusterId());
        etcd.getKVClient().put(bytes(prefix + "store"), bytes(cluster + "|0")).get(10, TimeUnit.SECONDS);
    }

    /** Deletes every key under {@code prefix}. */
    static void remove(Client etcd, String prefix) throws Exception {
        etcd.getKVClient().delete(bytes(prefix), DeleteOption.builder().isPrefix(true).build()).get(10, TimeUnit.SECONDS);
    }

    private HttpResponse<String> get(String url, String token) throws Exception {
        return send(HttpRequest.newBuilder(URI.create(url)).GET(), token);
    }

    private HttpResponse<String> delete(String url, String token) throws Exception {
        return send(HttpRequest.newBuilder(URI.create(url)).DELETE(), token);
    }

    private HttpResponse<String> send(HttpRequest.Builder request, String token) throws Exception {
        if (token != null) {
            request.header("Authorization", "Bearer " + token);
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** The key of {@code machineId}: generation, lease expiry, high water, token, owner. */
    private static String[] entry(Client etcd, String prefix, long machineId) throws Exception {
        List<KeyValue> kvs = etcd.getKVClient().get(bytes(prefix + String.format("%04d", machineId)))
                .get(10, TimeUnit.SECONDS).getKvs();
        assertThat(kvs).hasSize(1);
        return kvs.get(0).getValue().toString(StandardCharsets.UTF_8).split("\\|", 5);
    }

    private static ByteSequence bytes(String text) {
        return ByteSequence.from(text, StandardCharsets.UTF_8);
    }
}
