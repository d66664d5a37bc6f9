package io.vesta.server;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.vesta.test.TestVariables;
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

/**
 * vesta-server on the redis strategy is configuration only: Lettuce is in the jar. The Redis named by
 * {@code VESTA_TEST_REDIS_URL}; skipped when it is unset.
 */
class RedisServerTests {

    @TempDir
    Path dir;

    @Test
    void theServerLeasesItsMachineIdFromRedisListsTheHashAndReleasesItOnStop() throws Exception {
        String url = TestVariables.require("VESTA_TEST_REDIS_URL", "redis://127.0.0.1:6379");
        String key = "vesta-server-test:" + UUID.randomUUID().toString().substring(0, 8);
        RedisClient client = RedisClient.create(url);
        try (StatefulRedisConnection<String, String> redis = client.connect()) {
            // As a running fleet leaves the hash (claimed on this server before): a Redis started less than a lease ago
            // would otherwise make the first claim wait out the lease.
            String runId = redis.sync().info("server").lines().filter(line -> line.startsWith("run_id:")).findFirst()
                    .orElseThrow().substring(7).trim() + "." + redis.sync().info("replication").lines()
                    .filter(line -> line.startsWith("master_replid:")).findFirst().orElseThrow().substring(14).trim();
            redis.sync().hset(key, "store", runId + "|0");
            try (ConfigurableApplicationContext server = new SpringApplicationBuilder(VestaServerApplication.class).run(
                    "--server.port=0", "--vesta.server.data-dir=" + dir, "--vesta.machine-id.strategy=redis",
                    "--vesta.machine-id.redis.url=" + url, "--vesta.machine-id.redis.key=" + key,
                    "--vesta.machine-id.redis.owner=redis-server-test")) {
                String base = "http://127.0.0.1:" + server.getEnvironment().getRequiredProperty("local.server.port");
                HttpClient http = HttpClient.newHttpClient();
                String readiness = http.send(HttpRequest.newBuilder(URI.create(base + "/actuator/health/readiness")).build(),
                        HttpResponse.BodyHandlers.ofString()).body();
                String leases = http.send(HttpRequest.newBuilder(URI.create(base + "/vesta/admin/leases")).build(),
                        HttpResponse.BodyHandlers.ofString()).body();
                String id = http.send(HttpRequest.newBuilder(URI.create(base + "/vesta/genid")).build(),
                        HttpResponse.BodyHandlers.ofString()).body();

                assertThat(readiness).contains("\"status\":\"UP\"").contains("\"machineIdSource\":\"redis (hash " + key);
                assertThat(leases).contains("\"store\":\"redis hash " + key)
                        // A server leases from the top of the server range down.
                        .contains("{\"machineId\":1023,\"state\":\"live\",\"live\":true,\"self\":true,\"owner\":\"redis-server-test\"")
                        .contains("{\"machineId\":1022,\"state\":\"free\"");
                assertThat(id).startsWith("{\"id\":");
                assertThat(redis.sync().hget(key, "1023")).endsWith("|redis-server-test");
            }
            long expiry = Long.parseLong(redis.sync().hget(key, "1023").split("\\|")[1]);
            assertThat(expiry).as("the lease was released on stop").isLessThanOrEqualTo(System.currentTimeMillis());
            redis.sync().del(key);
        } finally {
            client.shutdown();
        }
    }
}
