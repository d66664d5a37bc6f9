package io.vesta.autoconfigure;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vesta.EmbeddedIdService;
import io.vesta.InvalidSettingException;
import io.vesta.autoconfigure.actuate.VestaEndpoint;
import io.vesta.autoconfigure.actuate.VestaHealthContributorAutoConfiguration;
import io.vesta.autoconfigure.actuate.VestaHealthIndicator;
import io.vesta.autoconfigure.actuate.VestaMetricsAutoConfiguration;
import io.vesta.autoconfigure.client.VestaClientAutoConfiguration;
import io.vesta.client.RemoteIdService;
import io.vesta.test.Await;
import io.vesta.test.TestVariables;
import io.vesta.test.lease.TcpRelay;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.env.StandardEnvironment;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code vesta.machine-id.fallback.*} on the real thing: a node whose Redis is out of reach at start-up (a
 * {@link TcpRelay} cut) starts on its fallback machine ID, shows it in health, {@code /actuator/vesta} and its meters,
 * and goes back to a leased machine ID once Redis answers; and every bad fallback setting is refused at start-up
 * naming the property, its value and what is allowed.
 */
class MachineIdFallbackTests {

    private final String key = "vesta-test:fallback_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);

    @TempDir
    Path marks;

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(VestaAutoConfiguration.class,
                    VestaHealthContributorAutoConfiguration.class, VestaMetricsAutoConfiguration.class));

    private ApplicationContextRunner onRedisAt(String url) {
        return runner.withPropertyValues("vesta.machine-id.strategy=redis", "vesta.machine-id.redis.url=" + url,
                "vesta.machine-id.redis.key=" + key, "vesta.machine-id.redis.owner=node-a",
                "vesta.machine-id.redis.lease=3s", "vesta.machine-id.redis.heartbeat=1s", "vesta.type=min-granularity",
                "vesta.time-store.directory=" + marks);
    }

    @Test
    void aNodeWhoseRedisIsOutOfReachAtStartUpIssuesUnderItsFallbackAndShowsIt() throws Exception {
        RedisURI redis = RedisURI.create(TestVariables.require("VESTA_TEST_REDIS_URL", "redis://127.0.0.1:6379"));
        RedisClient admin = RedisClient.create(redis);
        try (StatefulRedisConnection<String, String> connection = admin.connect();
                TcpRelay relay = new TcpRelay(redis.getHost(), redis.getPort())) {
            // The hash as a running fleet leaves it, so that the claim once Redis answers costs no wait for a lease.
            connection.sync().hset(key, "store", MachineIdConfigurationTests.runId(connection) + "|0");
            relay.cut();
            String url = "redis://127.0.0.1:" + relay.port() + "/" + redis.getDatabase();
            Instant beforeStart = Instant.now();
            onRedisAt(url).withPropertyValues("vesta.machine-id.embedded-range.max=915",
                    "vesta.machine-id.fallback.value=916", "vesta.machine-id.fallback.check-interval=100ms").run(context -> {
                List<Long> ids = onTheFallback(context, "redis");
                EmbeddedIdService service = context.getBean(EmbeddedIdService.class);
                Health health = context.getBean(VestaHealthIndicator.class).health();
                assertThat(fallbackDetail(health.getDetails())).containsEntry("first", 916L)
                        .containsEntry("active", true).containsEntry("idsIssued", 2_000L);
                assertThat((Instant) fallbackDetail(health.getDetails()).get("since")).as("when the spell began")
                        .isBetween(beforeStart, Instant.now()).isEqualTo(service.onFallbackSince().orElseThrow());
                assertThat(fallbackDetail(new VestaEndpoint(service, context.getBean(VestaProperties.class)).identity()))
                        .containsEntry("active", true).containsEntry("idsIssued", 2_000L);
                MeterRegistry registry = new SimpleMeterRegistry();
                context.getBeansOfType(MeterBinder.class).values().forEach(binder -> binder.bindTo(registry));
                assertThat(registry.get("vesta.machine-id.fallback.active").gauge().value()).isEqualTo(1);
                assertThat(registry.get("vesta.machine-id.fallback.issued").functionCounter().count()).isEqualTo(2_000);

                relay.restore();
                leasedOnceTheStoreAnswers(service, ids, "Redis");
                assertThat(registry.get("vesta.machine-id.fallback.active").gauge().value()).isZero();
                assertThat(fallbackDetail(context.getBean(VestaHealthIndicator.class).health().getDetails()))
                        .containsEntry("active", false).doesNotContainKey("since");
                assertThat(service.onFallbackSince()).isEmpty();
                assertThat(connection.sync().hget(key, "0")).as("the lease in Redis").endsWith("|node-a");
            });
        } finally {
            try (StatefulRedisConnection<String, String> connection = admin.connect()) {
                connection.sync().del(key);
            }
            admin.shutdown();
        }
    }

    @Test
    void aClientsEmbeddedFallbackIssuesUnderTheFallbackMachineIdWhenNeitherServerNorStoreAnswers() {
        // No server listens on port 9, no Redis on port 1: the client's embedded generator starts on its fallback.
        onRedisAt("redis://127.0.0.1:1").withConfiguration(AutoConfigurations.of(VestaClientAutoConfiguration.class))
                .withPropertyValues("vesta.mode=client", "vesta.client.servers=http://127.0.0.1:9",
                        "vesta.client.fallback=embedded", "vesta.machine-id.embedded-range.max=915",
                        "vesta.machine-id.fallback.value=916").run(context -> {
                    RemoteIdService client = context.getBean(RemoteIdService.class);
                    assertThat(client.fallback()).get().isInstanceOfSatisfying(EmbeddedIdService.class, fallback -> {
                        assertThat(fallback.machineIdFallback().first()).isEqualTo(916);
                        assertThat(fallback.onFallback()).isTrue();
                    });
                    assertThat(client.expId(client.genId()).machine()).isEqualTo(916);
                });
    }

    /**
     * A node started while its store is out of reach: it issues 2,000 IDs under fallback 916 with its health UP and
     * its source naming the fallback and {@code store}. The IDs issued.
     */
    static List<Long> onTheFallback(AssertableApplicationContext context, String store) {
        assertThat(context).hasNotFailed();
        EmbeddedIdService service = context.getBean(EmbeddedIdService.class);
        assertThat(service.onFallback()).isTrue();
        List<Long> ids = new ArrayList<>();
        Arrays.stream(service.genIds(2_000)).forEach(ids::add);
        assertThat(service.expId(ids.get(ids.size() - 1)).machine()).isEqualTo(916);
        Health health = context.getBean(VestaHealthIndicator.class).health();
        assertThat(health.getStatus()).as("IDs are still issued").isEqualTo(Status.UP);
        assertThat(health.getDetails()).containsEntry("machineId", 916L);
        assertThat((String) health.getDetails().get("machineIdSource"))
                .startsWith("fallback 916 (vesta.machine-id.fallback.value; " + store);
        return ids;
    }

    /**
     * Once the store answers, the node leaves its fallback by itself for the lowest leased machine ID, 0, with no ID
     * repeated across both (added to {@code ids}).
     */
    static void leasedOnceTheStoreAnswers(EmbeddedIdService service, List<Long> ids, String store) throws Exception {
        Await.until("a leased machine ID once " + store + " answers", Duration.ofSeconds(90), () -> {
            Arrays.stream(service.genIds(100)).forEach(ids::add);
            return !service.onFallback();
        });
        Arrays.stream(service.genIds(2_000)).forEach(ids::add);
        assertThat(service.expId(ids.get(ids.size() - 1)).machine()).isZero();
        assertThat(ids).doesNotHaveDuplicates();
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> fallbackDetail(Map<String, Object> details) {
        return (Map<String, Object>) details.get("machineIdFallback");
    }

    @Test
    void withoutAFallbackThereAreNoFallbackDetailsOrMeters() {
        runner.withPropertyValues("vesta.machine-id.value=3", "vesta.time-store.directory=" + marks).run(context -> {
            assertThat(context.getBean(VestaHealthIndicator.class).health().getDetails()).doesNotContainKey("machineIdFallback");
            MeterRegistry registry = new SimpleMeterRegistry();
            context.getBeansOfType(MeterBinder.class).values().forEach(binder -> binder.bindTo(registry));
            assertThat(registry.find("vesta.machine-id.fallback.active").meter()).isNull();
            assertThat(registry.find("vesta.machine-id.fallback.issued").meter()).isNull();
        });
    }

    @Test
    void aFallbackOutsideTheMachineIdSpaceIsRefused() {
        String[] room = { "vesta.machine-id.embedded-range.max=915" };
        String allowed = "a machine ID in [0, 1023] outside both [0, 915] (vesta.machine-id.embedded-range) and"
                + " [924, 1023] (vesta.machine-id.server-range): 916-923";
        refused(concat(room, "vesta.machine-id.fallback.value=1024"), "vesta.machine-id.fallback.value", "1024",
                allowed, "is outside the machine-ID space [0, 1023]");
        refused(concat(room, "vesta.machine-id.fallback.value=-8"), "vesta.machine-id.fallback.value", "-8",
                allowed, "is outside the machine-ID space [0, 1023]");
    }

    @Test
    void aFallbackThatDoesNotStartABlockIsRefused() {
        refused(new String[] { "vesta.machine-id.block-size=8", "vesta.machine-id.embedded-range.max=911",
                "vesta.machine-id.server-range.min=928", "vesta.machine-id.fallback.value=913" },
                "vesta.machine-id.fallback.value", "913", "the first machine ID of a block of 8 aligned from 0"
                        + " (vesta.machine-id.block-size) in [0, 1023] outside both [0, 911] (vesta.machine-id.embedded-range)"
                        + " and [928, 1023] (vesta.machine-id.server-range): 912-920, in steps of 8",
                "does not start a block of 8 aligned from 0 (vesta.machine-id.block-size 8)");
    }

    @Test
    void aFallbackInsideTheLeasedRangeIsRefused() {
        refused(new String[] { "vesta.machine-id.embedded-range.max=915", "vesta.machine-id.fallback.value=5" },
                "vesta.machine-id.fallback.value", "5", "outside both [0, 915] (vesta.machine-id.embedded-range) and"
                        + " [924, 1023] (vesta.machine-id.server-range): 916-923",
                "lies inside the machine-ID range [0, 915] (vesta.machine-id.embedded-range)");
    }

    @Test
    void anEmbeddedNodesFallbackInsideTheServerRangeIsRefused() {
        refused(new String[] { "vesta.machine-id.embedded-range.max=915", "vesta.machine-id.fallback.value=950" },
                "vesta.machine-id.fallback.value", "950", "outside both [0, 915] (vesta.machine-id.embedded-range) and"
                        + " [924, 1023] (vesta.machine-id.server-range): 916-923",
                "lies inside the machine-ID range [924, 1023] (vesta.machine-id.server-range) that the store hands out to servers");
    }

    @Test
    void aServersFallbackInsideTheEmbeddedRangeIsRefused() {
        refused(new String[] { "vesta.gen-method=rest", "vesta.machine-id.server-range.max=1015",
                "vesta.machine-id.fallback.value=900" }, "vesta.machine-id.fallback.value", "900",
                "outside both [924, 1015] (vesta.machine-id.server-range) and [0, 923] (vesta.machine-id.embedded-range): 1016-1023",
                "that the store hands out to embedded nodes");
    }

    @Test
    void aCheckIntervalThatIsNotPositiveIsRefused() {
        String[] room = { "vesta.machine-id.embedded-range.max=915", "vesta.machine-id.fallback.value=916" };
        refused(concat(room, "vesta.machine-id.fallback.check-interval=0s"), "vesta.machine-id.fallback.check-interval",
                "0ms", "[1ms, 60000ms]", "is out of range");
        refused(concat(room, "vesta.machine-id.fallback.check-interval=-1s"), "vesta.machine-id.fallback.check-interval",
                "-1000ms", "[1ms, 60000ms]", "is out of range");
    }

    @Test
    void aFallbackWithAFixedMachineIdIsRefused() {
        runner.withPropertyValues("vesta.machine-id.value=3", "vesta.machine-id.embedded-range.max=915",
                "vesta.machine-id.fallback.value=916", "vesta.time-store.directory=" + marks).run(context -> {
                    assertThat(context).getFailure().rootCause().isInstanceOfSatisfying(InvalidSettingException.class,
                            e -> assertThat(e.getMessage()).startsWith("vesta.machine-id.fallback.value=916 is used only"
                                    + " with a machine ID leased from a store").contains("allowed: unset, or set with"
                                    + " vesta.machine-id.strategy db, redis, zookeeper or etcd"));
                });
    }

    private static String[] concat(String[] first, String last) {
        String[] all = Arrays.copyOf(first, first.length + 1);
        all[first.length] = last;
        return all;
    }

    private void refused(String property, String setting, String value, String allowed, String problem) {
        refused(new String[] { property }, setting, value, allowed, problem);
    }

    /**
     * Start-up with {@code properties} on a Redis lease (never reached: the settings are refused before) fails with the
     * setting, its value, the problem and what is allowed, in the exception and in the failure analyzer's report.
     */
    private void refused(String[] properties, String setting, String value, String allowed, String problem) {
        onRedisAt("redis://127.0.0.1:1").withPropertyValues(properties).run(context -> {
            assertThat(context).hasFailed();
            assertThat(context).getFailure().rootCause().isInstanceOfSatisfying(InvalidSettingException.class, e -> {
                assertThat(e.setting()).isEqualTo(setting);
                assertThat(e.getMessage()).startsWith(setting + "=" + value + " ").contains(problem)
                        .contains("allowed: ").contains(allowed);
            });
            assertThat(new VestaFailureAnalyzer(new StandardEnvironment()).analyze(context.getStartupFailure())
                    .getDescription()).contains(setting).contains(value).contains(allowed);
        });
    }
}
