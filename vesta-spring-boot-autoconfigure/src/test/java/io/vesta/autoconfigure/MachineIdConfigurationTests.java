package io.vesta.autoconfigure;

import io.vesta.EmbeddedIdService;
import io.vesta.GenMethod;
import io.vesta.IdService;
import io.vesta.InvalidSettingException;
import io.vesta.autoconfigure.actuate.VestaHealthContributorAutoConfiguration;
import io.vesta.autoconfigure.actuate.VestaHealthIndicator;
import io.vesta.machine.MachineIdProvider;
import io.vesta.machine.MachineIdRange;
import io.vesta.machine.db.DbMachineIdProvider;
import io.vesta.machine.redis.RedisMachineIdProvider;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.vesta.machine.zookeeper.ZooKeeperMachineIdProvider;
import io.vesta.test.TestVariables;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.imps.CuratorFrameworkState;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import io.vesta.autoconfigure.redis.ApplicationRedis;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import java.util.List;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.SimpleDriverDataSource;

import javax.sql.DataSource;
import java.nio.file.Path;
import java.time.Duration;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code vesta.machine-id.strategy}: each strategy's configuration, back-off and failure reports. */
class MachineIdConfigurationTests {

    private final String table = "vesta_machine_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class, VestaAutoConfiguration.class,
                    VestaHealthContributorAutoConfiguration.class))
            .withPropertyValues("spring.datasource.url=jdbc:h2:mem:" + table + ";DB_CLOSE_DELAY=-1");

    @Test
    void dbStrategyLeasesTheLowestFreeIdAndReleasesItWhenTheContextCloses() {
        String[] properties = { "vesta.machine-id.strategy=db", "vesta.machine-id.db.table=" + table,
                "vesta.machine-id.db.initialize-schema=always", "vesta.machine-id.db.owner=node-a",
                "vesta.machine-id.embedded-range.min=40" };
        runner.withPropertyValues(properties).run(context -> {
            EmbeddedIdService service = context.getBean(EmbeddedIdService.class);
            assertThat(service.machineId()).isEqualTo(40);
            assertThat(service.expId(service.genId()).machine()).isEqualTo(40);
            assertThat(service.machineIdSource()).contains(table).contains("node-a");
            assertThat(context.getBean(VestaHealthIndicator.class).health().getDetails()).containsKey("leaseHeldUntil");
            JdbcTemplate jdbc = new JdbcTemplate(context.getBean(DataSource.class));
            assertThat(jdbc.queryForObject("select owner from " + table + " where machine_id = 40", String.class))
                    .isEqualTo("node-a");

            runner.withPropertyValues(properties).withPropertyValues("vesta.machine-id.db.owner=node-b").run(other ->
                    assertThat(other.getBean(EmbeddedIdService.class).machineId()).isEqualTo(41));
        });
    }

    @Test
    void healthGoesDownWhenTheLeaseIsLost() {
        runner.withPropertyValues("vesta.machine-id.strategy=db", "vesta.machine-id.db.table=" + table,
                "vesta.machine-id.db.initialize-schema=always").run(context -> {
                    context.getBean(MachineIdProvider.class).lease().revoke("the row was taken over by node-z");
                    assertThat(context.getBean(VestaHealthIndicator.class).health().getStatus()).isEqualTo(Status.DOWN);
                    assertThat((String) context.getBean(VestaHealthIndicator.class).health().getDetails().get("reason"))
                            .contains("the row was taken over by node-z");
                });
    }

    @Test
    void dbStrategyWithoutADataSourceSaysSo() {
        new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(VestaAutoConfiguration.class))
                .withPropertyValues("vesta.machine-id.strategy=db").run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(new VestaFailureAnalyzer(new StandardEnvironment()).analyze(context.getStartupFailure()).getDescription())
                            .contains("the property 'vesta.machine-id.strategy' is 'db'")
                            .contains("needs a DataSource and the application has none");
                });
    }

    @Test
    void dbStrategyWithTwoDataSourcesAndNoPrimaryNamesThem() {
        new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(VestaAutoConfiguration.class))
                .withBean("orders", DataSource.class, () -> new SimpleDriverDataSource(new org.h2.Driver(), "jdbc:h2:mem:orders"))
                .withBean("audit", DataSource.class, () -> new SimpleDriverDataSource(new org.h2.Driver(), "jdbc:h2:mem:audit"))
                .withPropertyValues("vesta.machine-id.strategy=db").run(context -> assertThat(context).getFailure()
                        .rootCause().isInstanceOfSatisfying(InvalidSettingException.class, e -> {
                            assertThat(e.setting()).isEqualTo("vesta.machine-id.strategy");
                            assertThat(e.getMessage()).contains("has 2, none of them primary: orders, audit");
                        }));
    }

    @Test
    void badLeaseSettingsAreReportedUnderTheirProperty() {
        runner.withPropertyValues("vesta.machine-id.strategy=db", "vesta.machine-id.db.table=" + table,
                "vesta.machine-id.db.lease=10s", "vesta.machine-id.db.heartbeat=5s").run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(new VestaFailureAnalyzer(new StandardEnvironment()).analyze(context.getStartupFailure()).getDescription())
                            .contains("vesta.machine-id.db.heartbeat=5000ms is out of range; allowed: a duration in"
                                    + " [10ms, 3333ms] (at most a third of vesta.machine-id.db.lease 10000ms)");
                });
    }

    @Test
    void zookeeperStrategyTakesItsIdFromASequentialNode(@TempDir Path dir) throws Exception {
        try (TestingServer zookeeper = new TestingServer()) {
            runner.withPropertyValues("vesta.machine-id.strategy=zookeeper",
                    "vesta.machine-id.zookeeper.connect-string=" + zookeeper.getConnectString(),
                    "vesta.machine-id.zookeeper.namespace=" + table, "vesta.machine-id.zookeeper.owner=127.0.0.1:8080",
                    "vesta.machine-id.zookeeper.cache-file=" + dir.resolve("machine-id"),
                    // Marks of its own: 1023's in the shared default directory may be held by another test's context.
                    "vesta.time-store.directory=" + dir.resolve("marks"), "vesta.gen-method=rest").run(context -> {
                        EmbeddedIdService service = context.getBean(EmbeddedIdService.class);
                        // A REST server in a namespace it created: the top of the server range, counting down.
                        assertThat(service.machineId()).isEqualTo(1023);
                        assertThat(service.expId(service.genId()).machine()).isEqualTo(1023);
                        assertThat(((ZooKeeperMachineIdProvider) context.getBean(MachineIdProvider.class))
                                .leaseDuration()).isEqualTo(Duration.ofSeconds(30));
                    });
            // Without a lease of its own, a short reclaim-after gets half of it, as the engine's default says.
            runner.withPropertyValues("vesta.machine-id.strategy=zookeeper",
                    "vesta.machine-id.zookeeper.connect-string=" + zookeeper.getConnectString(),
                    "vesta.machine-id.zookeeper.namespace=" + table + "-short", "vesta.machine-id.zookeeper.owner=127.0.0.1:8081",
                    "vesta.machine-id.zookeeper.cache-file=" + dir.resolve("machine-id-short"),
                    "vesta.machine-id.zookeeper.reclaim-after=40s").run(context -> assertThat(
                            ((ZooKeeperMachineIdProvider) context.getBean(MachineIdProvider.class))
                                    .leaseDuration()).isEqualTo(Duration.ofSeconds(20)));
        }
    }

    @Test
    void zookeeperStrategyWithoutAConnectStringLeasesThroughTheApplicationsCuratorAndLeavesItOpen(@TempDir Path dir)
            throws Exception {
        try (TestingServer zookeeper = new TestingServer(); CuratorFramework application = started(zookeeper)) {
            String[] node = new String[1];
            applicationCurator(application).withPropertyValues("vesta.machine-id.strategy=zookeeper",
                    "vesta.machine-id.zookeeper.namespace=" + table, "vesta.machine-id.zookeeper.owner=127.0.0.1:8080",
                    "vesta.machine-id.zookeeper.cache-file=" + dir.resolve("machine-id"),
                    "vesta.time-store.directory=" + dir.resolve("marks"), "vesta.gen-method=rest").run(context -> {
                        assertThat(context).hasNotFailed();
                        assertThat(context.getBean(EmbeddedIdService.class).machineId()).isEqualTo(1023);
                        node[0] = ((ZooKeeperMachineIdProvider) context.getBean(MachineIdProvider.class)).nodePath();
                        assertThat(application.checkExists().forPath(node[0])).isNotNull();
                    });
            // The provider closed with the context; the application's client is still the application's to use.
            assertThat(application.getState()).isEqualTo(CuratorFrameworkState.STARTED);
            assertThat(application.checkExists().forPath(node[0])).isNotNull();
        }
    }

    @Test
    void aConnectStringOfVestasOwnWinsOverTheApplicationsCurator(@TempDir Path dir) throws Exception {
        try (TestingServer vestas = new TestingServer(); TestingServer applications = new TestingServer();
                CuratorFramework application = started(applications); CuratorFramework observer = started(vestas)) {
            applicationCurator(application).withPropertyValues("vesta.machine-id.strategy=zookeeper",
                    "vesta.machine-id.zookeeper.connect-string=" + vestas.getConnectString(),
                    "vesta.machine-id.zookeeper.namespace=" + table, "vesta.machine-id.zookeeper.owner=127.0.0.1:8080",
                    "vesta.machine-id.zookeeper.cache-file=" + dir.resolve("machine-id")).run(context -> {
                        String node = ((ZooKeeperMachineIdProvider) context.getBean(MachineIdProvider.class)).nodePath();
                        assertThat(observer.checkExists().forPath(node)).isNotNull();
                        assertThat(application.checkExists().forPath("/vesta")).isNull();
                    });
        }
    }

    /** A Curator client on {@code server}, started, as an application's own would be. */
    private static CuratorFramework started(TestingServer server) {
        CuratorFramework client = CuratorFrameworkFactory.newClient(server.getConnectString(), new RetryOneTime(100));
        client.start();
        return client;
    }

    /** The runner with {@code client} as the application's bean, whose lifecycle (closing it) the test owns. */
    private ApplicationContextRunner applicationCurator(CuratorFramework client) {
        return runner.withBean(CuratorFramework.class, () -> client, definition -> definition.setDestroyMethodName(""));
    }

    /** The Redis the redis-strategy tests lease from; they skip when it is unset (fail when CI=true). */
    private static String redisUrl() {
        return TestVariables.require("VESTA_TEST_REDIS_URL", "redis://127.0.0.1:6379");
    }

    @Test
    void redisStrategyLeasesFromTheHashAndReleasesItWhenTheContextCloses() {
        String url = redisUrl();
        String key = "vesta-test:" + table;
        String[] properties = { "vesta.machine-id.strategy=redis", "vesta.machine-id.redis.url=" + url,
                "vesta.machine-id.redis.key=" + key, "vesta.machine-id.redis.owner=node-a",
                "vesta.machine-id.embedded-range.min=40" };
        RedisClient client = RedisClient.create(url);
        try (StatefulRedisConnection<String, String> connection = client.connect()) {
            // The hash as a running fleet leaves it (claimed on this server before), so that a server started less than
            // a lease ago costs no wait here.
            connection.sync().hset(key, "store", runId(connection) + "|0");
            runner.withPropertyValues(properties).run(context -> {
                EmbeddedIdService service = context.getBean(EmbeddedIdService.class);
                assertThat(service.machineId()).isEqualTo(40);
                assertThat(service.expId(service.genId()).machine()).isEqualTo(40);
                assertThat(service.machineIdSource()).contains("redis (hash " + key).contains("owner 'node-a'");
                assertThat(context.getBean(VestaHealthIndicator.class).health().getDetails()).containsKey("leaseHeldUntil");
                RedisMachineIdProvider provider = (RedisMachineIdProvider) context.getBean(MachineIdProvider.class);
                assertThat(provider.leaseDuration()).isEqualTo(Duration.ofSeconds(30));
                assertThat(provider.heartbeatInterval()).isEqualTo(Duration.ofSeconds(5));
                assertThat(connection.sync().hget(key, "40")).endsWith("|node-a");

                runner.withPropertyValues(properties).withPropertyValues("vesta.machine-id.redis.owner=node-b").run(other ->
                        assertThat(other.getBean(EmbeddedIdService.class).machineId()).isEqualTo(41));
            });
            // Closing the context released the lease: its expiry is in the past.
            long expiry = Long.parseLong(connection.sync().hget(key, "40").split("\\|")[1]);
            assertThat(expiry).isLessThanOrEqualTo(System.currentTimeMillis());
            connection.sync().del(key);
        } finally {
            client.shutdown();
        }
    }

    @Test
    void redisStrategyWithoutAUrlUsesTheServerOfSpringDataRedis() {
        RedisURI shared = RedisURI.create(redisUrl());
        String key = "vesta-test:" + table;
        withMarkedHash(shared, 0, key, () -> runner.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class))
                .withPropertyValues("vesta.machine-id.strategy=redis", "vesta.machine-id.redis.key=" + key,
                        "spring.data.redis.host=" + shared.getHost(), "spring.data.redis.port=" + shared.getPort())
                .run(context -> assertThat(context.getBean(EmbeddedIdService.class).machineIdSource())
                        .contains("hash " + key + " at " + shared.getHost() + ":" + shared.getPort())));
    }

    @Test
    void redisStrategyWithoutAUrlUsesTheApplicationsServiceConnection() {
        RedisURI shared = RedisURI.create(redisUrl());
        String key = "vesta-test:" + table;
        // What a Docker Compose or Testcontainers service connection registers: no spring.data.redis.* at all.
        DataRedisConnectionDetails serviceConnection = new DataRedisConnectionDetails() {
            @Override
            public Standalone getStandalone() {
                return Standalone.of(shared.getHost(), shared.getPort(), 3);
            }
        };
        withMarkedHash(shared, 3, key, () -> runner.withBean(DataRedisConnectionDetails.class, () -> serviceConnection)
                .withPropertyValues("vesta.machine-id.strategy=redis", "vesta.machine-id.redis.key=" + key)
                .run(context -> assertThat(context.getBean(EmbeddedIdService.class).machineIdSource())
                        .contains("hash " + key + " at " + shared.getHost() + ":" + shared.getPort() + "/3")));
    }

    @Test
    void vestasOwnRedisUrlWinsOverTheApplicationsConnection() {
        RedisURI shared = RedisURI.create(redisUrl());
        String key = "vesta-test:" + table;
        DataRedisConnectionDetails elsewhere = new DataRedisConnectionDetails() {
            @Override
            public Standalone getStandalone() {
                return Standalone.of("127.0.0.1", 1);
            }
        };
        withMarkedHash(shared, 0, key, () -> runner.withBean(DataRedisConnectionDetails.class, () -> elsewhere)
                .withPropertyValues("vesta.machine-id.strategy=redis", "vesta.machine-id.redis.key=" + key,
                        "vesta.machine-id.redis.url=" + redisUrl())
                .run(context -> assertThat(context.getBean(EmbeddedIdService.class).machineIdSource())
                        .contains("hash " + key + " at " + shared.getHost() + ":" + shared.getPort())));
    }

    @Test
    void anApplicationOnARedisClusterMustNameThePrimaryToLeaseOn() {
        DataRedisConnectionDetails cluster = new DataRedisConnectionDetails() {
            @Override
            public Cluster getCluster() {
                return () -> List.of(new Node("127.0.0.1", 7000), new Node("127.0.0.1", 7001));
            }
        };
        runner.withBean(DataRedisConnectionDetails.class, () -> cluster)
                .withPropertyValues("vesta.machine-id.strategy=redis").run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(context.getStartupFailure()).rootCause().isInstanceOfSatisfying(InvalidSettingException.class,
                            e -> {
                                assertThat(e.setting()).isEqualTo("vesta.machine-id.redis.url");
                                assertThat(e.getMessage()).contains("is a cluster").contains("one primary");
                            });
                });
    }

    @Test
    void redisStrategyWorksWithoutSpringBootsRedisModule() {
        RedisURI shared = RedisURI.create(redisUrl());
        String key = "vesta-test:" + table;
        withMarkedHash(shared, 0, key, () -> runner.withClassLoader(new FilteredClassLoader("org.springframework.boot.data.redis"))
                .withPropertyValues("vesta.machine-id.strategy=redis", "vesta.machine-id.redis.key=" + key,
                        "vesta.machine-id.redis.url=" + redisUrl())
                .run(context -> {
                    assertThat(context).hasNotFailed().doesNotHaveBean(ApplicationRedis.class);
                    assertThat(context.getBean(EmbeddedIdService.class).machineIdSource()).contains("hash " + key);
                }));
    }

    /**
     * Runs {@code test} with {@code key} on database {@code database} of the shared Redis marked as claimed on this
     * server instance long ago (so that the provider need not wait out a settle period), and deletes it afterwards.
     */
    private static void withMarkedHash(RedisURI shared, int database, String key, Runnable test) {
        RedisURI uri = RedisURI.builder(shared).withDatabase(database).build();
        RedisClient client = RedisClient.create(uri);
        try (StatefulRedisConnection<String, String> connection = client.connect()) {
            connection.sync().hset(key, "store", runId(connection) + "|0");
            try {
                test.run();
            } finally {
                connection.sync().del(key);
            }
        } finally {
            client.shutdown();
        }
    }

    /** The server instance as the Redis provider's store mark names it: {@code run_id.master_replid}. */
    static String runId(StatefulRedisConnection<String, String> connection) {
        String info = connection.sync().info("server");
        String replication = connection.sync().info("replication");
        return info.lines().filter(line -> line.startsWith("run_id:")).findFirst().orElseThrow().substring(7).trim() + "."
                + replication.lines().filter(line -> line.startsWith("master_replid:")).findFirst().orElseThrow().substring(14).trim();
    }

    @Test
    void redisStrategySettingsAreCheckedUnderTheirNames() {
        runner.withPropertyValues("vesta.machine-id.strategy=redis", "vesta.machine-id.redis.url=redis://127.0.0.1:1",
                "vesta.machine-id.redis.lease=9s").run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(new VestaFailureAnalyzer(new StandardEnvironment()).analyze(context.getStartupFailure()).getDescription())
                            .contains("vesta.machine-id.redis.heartbeat=5000ms is out of range; allowed: a duration in"
                                    + " [10ms, 3000ms] (at most a third of vesta.machine-id.redis.lease 9000ms)");
                });
        runner.withPropertyValues("vesta.machine-id.strategy=redis",
                "vesta.machine-id.redis.url=redsi://vesta:s3cret@127.0.0.1:6379").run(context -> {
                    assertThat(context).hasFailed();
                    String description = new VestaFailureAnalyzer(new StandardEnvironment())
                            .analyze(context.getStartupFailure()).getDescription();
                    assertThat(description).contains("vesta.machine-id.redis.url=redsi://******@127.0.0.1:6379")
                            .contains("a Redis URI such as redis://host:6379/0").doesNotContain("s3cret");
                });
    }

    @Test
    void redisStrategyWithRedisDownFailsStartUpNamingTheServerAndTheHash() {
        runner.withPropertyValues("vesta.machine-id.strategy=redis", "vesta.machine-id.redis.url=redis://127.0.0.1:1")
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(context.getStartupFailure()).hasStackTraceContaining(
                            "Cannot lease a machine ID from Redis hash vesta:machine-ids at 127.0.0.1:1 (range 0-923");
                });
    }

    @Test
    void redisStrategyWithoutVestaRedisSaysWhatToAdd() {
        runner.withClassLoader(new FilteredClassLoader("io.vesta.machine.redis"))
                .withPropertyValues("vesta.machine-id.strategy=redis").run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(new VestaFailureAnalyzer(new StandardEnvironment()).analyze(context.getStartupFailure()).getAction())
                            .contains("redis with io.vesta:vesta-redis on the classpath");
                });
    }

    @Test
    void zookeeperStrategyWithoutCuratorSaysWhatToAdd() {
        runner.withClassLoader(new FilteredClassLoader("org.apache.curator"))
                .withPropertyValues("vesta.machine-id.strategy=zookeeper", "vesta.machine-id.zookeeper.connect-string=127.0.0.1:1")
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(new VestaFailureAnalyzer(new StandardEnvironment()).analyze(context.getStartupFailure()).getAction())
                            .contains("zookeeper with io.vesta:vesta-zookeeper on the classpath");
                });
    }

    @Test
    void zookeeperStrategyNeedsAConnectString() {
        runner.withPropertyValues("vesta.machine-id.strategy=zookeeper").run(context -> {
            assertThat(context).hasFailed();
            assertThat(new VestaFailureAnalyzer(new StandardEnvironment()).analyze(context.getStartupFailure()).getDescription())
                    .contains("vesta.machine-id.zookeeper.connect-string=(unset) is required; allowed: a ZooKeeper connect string");
        });
    }

    @Test
    void anIdServiceOfTheUsersOwnNeedsNoDatabase() {
        new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(VestaAutoConfiguration.class))
                .withPropertyValues("vesta.machine-id.strategy=db")
                .withBean(IdService.class, () -> EmbeddedIdService.builder().machineId(3).build())
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(MachineIdProvider.class));
    }
    @Test
    void dbStrategyOwnsItsLeaseAsHostAndPortWhenThePortIsFixed() {
        String[] properties = { "vesta.machine-id.strategy=db", "vesta.machine-id.db.table=" + table,
                "vesta.machine-id.db.initialize-schema=always" };
        String hostAndPid = DbMachineIdProvider.defaultOwner();
        String host = hostAndPid.substring(0, hostAndPid.lastIndexOf(':') + 1);
        runner.withPropertyValues(properties).withPropertyValues("server.port=8123")
                .run(context -> assertThat(leaseOwner(context)).isEqualTo(host + "8123"));
        runner.withPropertyValues(properties).withPropertyValues("server.port=0")
                .run(context -> assertThat(leaseOwner(context)).as("a random port says nothing about the node: the pid does")
                        .isEqualTo(hostAndPid));
    }

    private String leaseOwner(ApplicationContext context) {
        long machineId = context.getBean(EmbeddedIdService.class).machineId();
        return new JdbcTemplate(context.getBean(DataSource.class))
                .queryForObject("select owner from " + table + " where machine_id = " + machineId, String.class);
    }

    @Test
    void dbStrategyWithoutVestaJdbcSaysWhatToAdd() {
        runner.withClassLoader(new FilteredClassLoader("io.vesta.machine.db"))
                .withPropertyValues("vesta.machine-id.strategy=db").run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(new VestaFailureAnalyzer(new StandardEnvironment()).analyze(context.getStartupFailure()).getAction())
                            .contains("db with io.vesta:vesta-jdbc on the classpath");
                });
    }

    @Test
    void aMachineIdGenMethodBeanMakesAMissingMachineIdNameTheServerRange() {
        new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(VestaAutoConfiguration.class))
                .withBean(MachineIdGenMethod.class, () -> new MachineIdGenMethod(GenMethod.REST))
                .withBean(IdService.class, () -> EmbeddedIdService.builder().machineId(3).build())
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(context.getStartupFailure()).rootCause().isInstanceOfSatisfying(InvalidSettingException.class,
                            e -> assertThat(e.allowed()).isEqualTo(
                                    "a machine ID in [924, 1023] (vesta.machine-id.server-range, for gen-method rest)"));
                });
    }

    @Test
    void aClientWithoutAnEmbeddedFallbackNeedsNoMachineId() {
        new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(VestaAutoConfiguration.class))
                .withPropertyValues("vesta.mode=client", "vesta.client.fallback=none")
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(MachineIdProvider.class));
        new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(VestaAutoConfiguration.class))
                .withPropertyValues("vesta.mode=client", "vesta.client.fallback=embedded", "vesta.machine-id.value=7")
                .run(context -> assertThat(context.getBean(MachineIdProvider.class).acquire(
                        MachineIdRange.EMBEDDED)).isEqualTo(7));
    }
}
