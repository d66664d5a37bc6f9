package io.vesta.autoconfigure;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.options.DeleteOption;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vesta.EmbeddedIdService;
import io.vesta.InvalidSettingException;
import io.vesta.autoconfigure.actuate.VestaEndpoint;
import io.vesta.autoconfigure.actuate.VestaHealthContributorAutoConfiguration;
import io.vesta.autoconfigure.actuate.VestaHealthIndicator;
import io.vesta.autoconfigure.actuate.VestaMetricsAutoConfiguration;
import io.vesta.machine.MachineIdProvider;
import io.vesta.machine.etcd.EtcdMachineIdProvider;
import io.vesta.test.TestVariables;
import io.vesta.test.lease.TcpRelay;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.env.StandardEnvironment;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code vesta.machine-id.strategy=etcd} on the suite's etcd member ({@code VESTA_TEST_ETCD_ENDPOINTS}), each test under
 * a key prefix of its own: the lease, its health and endpoint, two nodes, a restart, the application's own client, the
 * fallback machine ID while etcd is out of reach, and every refused setting named with its value and what is allowed.
 */
class EtcdStrategyTests {

    private final String prefix = "/vesta-test/" + UUID.randomUUID() + "/";
    private final List<URI> endpoints = TestVariables.etcdEndpoints();
    private final Client etcd = Client.builder().endpoints(endpoints).build();

    @TempDir
    Path marks;

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(VestaAutoConfiguration.class,
                    VestaHealthContributorAutoConfiguration.class, VestaMetricsAutoConfiguration.class));

    /**
     * The prefix as a running fleet leaves it: claimed on this cluster before, settled long ago. A prefix without that
     * mark may be one restored from a snapshot, and its first claim would wait a lease for leases that might be lost.
     */
    @BeforeEach
    void markThePrefix() throws Exception {
        String cluster = Long.toHexString(etcd.getKVClient().get(bytes(prefix)).get(10, TimeUnit.SECONDS).getHeader()
                .getClusterId());
        etcd.getKVClient().put(bytes(prefix + "store"), bytes(cluster + "|0")).get(10, TimeUnit.SECONDS);
    }

    @AfterEach
    void removeThePrefix() throws Exception {
        try (etcd) {
            ByteSequence key = bytes(prefix);
            etcd.getKVClient().delete(key, DeleteOption.builder().isPrefix(true).build()).get(10, TimeUnit.SECONDS);
        }
    }

    /** The strategy on the suite's etcd under this test's prefix, with the marks in this test's directory. */
    private ApplicationContextRunner onEtcd(String... more) {
        return onEtcdAt(endpoints.stream().map(URI::toString).collect(Collectors.joining(",")), more);
    }

    private ApplicationContextRunner onEtcdAt(String endpoints, String... more) {
        return runner.withPropertyValues("vesta.machine-id.strategy=etcd", "vesta.machine-id.etcd.endpoints=" + endpoints,
                "vesta.machine-id.etcd.prefix=" + prefix, "vesta.time-store.directory=" + marks).withPropertyValues(more);
    }

    @Test
    void aNodeLeasesTheLowestFreeKeyShowsItAndReleasesItWhenTheContextCloses() throws Exception {
        String[] nodeA = { "vesta.machine-id.etcd.owner=node-a", "vesta.machine-id.embedded-range.min=40" };
        onEtcd(nodeA).run(context -> {
            assertThat(context).hasNotFailed();
            EmbeddedIdService service = context.getBean(EmbeddedIdService.class);
            assertThat(service.machineId()).isEqualTo(40);
            assertThat(service.expId(service.genId()).machine()).isEqualTo(40);
            assertThat(service.machineIdSource()).contains("etcd").contains("prefix " + prefix).contains("node-a");
            EtcdMachineIdProvider provider = (EtcdMachineIdProvider) context.getBean(MachineIdProvider.class);
            assertThat(provider.prefix()).isEqualTo(prefix);
            assertThat(provider.heartbeatInterval()).isEqualTo(EtcdMachineIdProvider.DEFAULT_HEARTBEAT);
            assertThat(provider.maxClockSkew()).isEqualTo(EtcdMachineIdProvider.DEFAULT_MAX_CLOCK_SKEW);

            Health health = context.getBean(VestaHealthIndicator.class).health();
            assertThat(health.getStatus()).isEqualTo(Status.UP);
            assertThat(health.getDetails()).containsEntry("machineId", 40L).containsKey("leaseHeldUntil");
            assertThat((String) health.getDetails().get("machineIdSource")).contains("prefix " + prefix);
            Map<String, Object> identity = new VestaEndpoint(service, context.getBean(VestaProperties.class)).identity();
            assertThat(identity).containsEntry("machineId", 40L);
            assertThat((String) identity.get("machineIdSource")).contains("prefix " + prefix).contains("node-a");
            MeterRegistry registry = new SimpleMeterRegistry();
            context.getBeansOfType(MeterBinder.class).values().forEach(binder -> binder.bindTo(registry));
            assertThat(registry.get("vesta.lease.held").gauge().value()).isEqualTo(1);

            String[] lease = entry(40);
            assertThat(lease[4]).isEqualTo("node-a");
            assertThat(Long.parseLong(lease[1])).as("lease expiry").isGreaterThan(System.currentTimeMillis());

            onEtcd("vesta.machine-id.etcd.owner=node-b", "vesta.machine-id.embedded-range.min=40").run(other -> {
                assertThat(other.getBean(EmbeddedIdService.class).machineId()).as("a second node").isEqualTo(41);
                assertThat(entry(41)[4]).isEqualTo("node-b");
            });
        });
        assertThat(Long.parseLong(entry(40)[1])).as("released on close: its expiry is past")
                .isLessThanOrEqualTo(System.currentTimeMillis());
        assertThat(entry(40)[4]).as("the owner stays, for its restart").isEqualTo("node-a");
    }

    @Test
    void aRestartUnderTheSameOwnerGetsItsMachineIdBack() throws Exception {
        onEtcd("vesta.machine-id.etcd.owner=first").run(first -> onEtcd("vesta.machine-id.etcd.owner=second")
                .run(second -> assertThat(second.getBean(EmbeddedIdService.class).machineId()).isEqualTo(1)));
        // Both released: 0 is the lowest free ID, yet the second owner's key comes first for it.
        onEtcd("vesta.machine-id.etcd.owner=second").run(context ->
                assertThat(context.getBean(EmbeddedIdService.class).machineId()).isEqualTo(1));
        onEtcd("vesta.machine-id.etcd.owner=third").run(context ->
                assertThat(context.getBean(EmbeddedIdService.class).machineId()).isZero());
    }

    @Test
    void anOwnerAtAFixedPortIsHostAndPort() throws Exception {
        String hostAndPid = EtcdMachineIdProvider.defaultOwner();
        onEtcd("server.port=8123").run(context -> assertThat(entry(0)[4])
                .isEqualTo(hostAndPid.substring(0, hostAndPid.lastIndexOf(':') + 1) + "8123"));
    }

    @Test
    void withoutEndpointsItLeasesThroughTheApplicationsClientAndLeavesItOpen() throws Exception {
        applicationClient().withPropertyValues("vesta.machine-id.strategy=etcd",
                "vesta.machine-id.etcd.prefix=" + prefix, "vesta.machine-id.etcd.owner=shared-client",
                "vesta.time-store.directory=" + marks).run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean(EmbeddedIdService.class).machineIdSource())
                            .contains("prefix " + prefix + " at the application's etcd client");
                    assertThat(entry(0)[4]).isEqualTo("shared-client");
                });
        // The context closed (and released through the client): the client is the application's, still open.
        assertThat(Long.parseLong(entry(0)[1])).isLessThanOrEqualTo(System.currentTimeMillis());
    }

    @Test
    void theApplicationsClientKeepsItsOwnConnectionSettings() throws Exception {
        applicationClient().withPropertyValues("vesta.machine-id.strategy=etcd",
                "vesta.machine-id.etcd.prefix=" + prefix, "vesta.machine-id.etcd.user=vesta",
                "vesta.machine-id.etcd.password=s3cret").run(context -> {
                    String description = refused(context, "vesta.machine-id.etcd.user");
                    assertThat(description).contains("vesta.machine-id.etcd.user=vesta").contains("with a given etcd client, whose own settings apply");
                });
        applicationClient().withPropertyValues("vesta.machine-id.strategy=etcd",
                "vesta.machine-id.etcd.prefix=" + prefix, "vesta.machine-id.etcd.tls.trust-certificates=/etc/ssl/ca.pem")
                .run(context -> assertThat(refused(context, "vesta.machine-id.etcd.tls.trust-certificates"))
                        .contains("vesta.machine-id.etcd.tls.trust-certificates=/etc/ssl/ca.pem"));
    }

    @Test
    void aPasswordIsNeverShown() throws Exception {
        applicationClient().withPropertyValues("vesta.machine-id.strategy=etcd", "vesta.machine-id.etcd.prefix=" + prefix,
                "vesta.machine-id.etcd.password=s3cret-of-etcd").run(context ->
                        assertThat(refused(context, "vesta.machine-id.etcd.password")).doesNotContain("s3cret-of-etcd"));
    }

    @Test
    void endpointsOfVestasOwnWinOverTheApplicationsClient() throws Exception {
        applicationClient().withPropertyValues("vesta.machine-id.strategy=etcd", "vesta.machine-id.etcd.endpoints="
                + endpoints.get(0), "vesta.machine-id.etcd.prefix=" + prefix, "vesta.time-store.directory=" + marks)
                .run(context -> assertThat(context.getBean(EmbeddedIdService.class).machineIdSource())
                        .contains("prefix " + prefix + " at [" + endpoints.get(0) + "]"));
    }

    @Test
    void withNeitherEndpointsNorAClientItSaysWhatToSet() throws Exception {
        runner.withPropertyValues("vesta.machine-id.strategy=etcd").run(context ->
                assertThat(refused(context, "vesta.machine-id.etcd.endpoints"))
                        .contains("vesta.machine-id.etcd.endpoints=(unset) is required")
                        .contains("http://etcd-1:2379,http://etcd-2:2379").contains("io.etcd.jetcd.Client"));
    }

    @Test
    void badSettingsFailStartUpNamingThePropertyItsValueAndWhatIsAllowed() throws Exception {
        assertThat(refused(onEtcd("vesta.machine-id.etcd.lease=9s"), "vesta.machine-id.etcd.heartbeat"))
                .contains("vesta.machine-id.etcd.heartbeat=5000ms is out of range; allowed: a duration in [10ms, 3000ms]"
                        + " (at most a third of vesta.machine-id.etcd.lease 9000ms)");
        assertThat(refused(onEtcd("vesta.machine-id.etcd.lease=2h"), "vesta.machine-id.etcd.lease"))
                .contains("vesta.machine-id.etcd.lease=7200000ms is out of range; allowed: a duration in [1000ms, 3600000ms]");
        assertThat(refused(onEtcd("vesta.machine-id.etcd.max-clock-skew=2m"), "vesta.machine-id.etcd.max-clock-skew"))
                .contains("vesta.machine-id.etcd.max-clock-skew=120000ms is out of range; allowed: a duration in [0ms, 60000ms]");
        assertThat(refused(onEtcd("vesta.machine-id.etcd.connect-timeout=10ms"), "vesta.machine-id.etcd.connect-timeout"))
                .contains("vesta.machine-id.etcd.connect-timeout=10ms is out of range; allowed: a duration in [100ms, 60000ms]");
        assertThat(refused(runner.withPropertyValues("vesta.machine-id.strategy=etcd",
                "vesta.machine-id.etcd.endpoints=etcd-1:2379", "vesta.time-store.directory=" + marks),
                "vesta.machine-id.etcd.endpoints"))
                .contains("vesta.machine-id.etcd.endpoints=[etcd-1:2379]").contains("http://host:port");
        assertThat(refused(runner.withPropertyValues("vesta.machine-id.strategy=etcd", "vesta.machine-id.etcd.endpoints="
                + endpoints.get(0), "vesta.machine-id.etcd.prefix=/vesta/no-slash"), "vesta.machine-id.etcd.prefix"))
                .contains("vesta.machine-id.etcd.prefix=/vesta/no-slash").contains("allowed: 1 to 512 characters ending in '/'");
        assertThat(refused(onEtcd("vesta.machine-id.etcd.password=s3cret"), "vesta.machine-id.etcd.user"))
                .contains("vesta.machine-id.etcd.user=(unset)").doesNotContain("s3cret");
    }

    @Test
    void tlsFilesAreReportedUnderTheirOwnProperties() throws Exception {
        Path missing = marks.resolve("missing.pem");
        Path notPem = Files.writeString(marks.resolve("not.pem"), "not a certificate");
        Path notAKey = Files.writeString(marks.resolve("not-a-key.pem"), "not a key");
        assertThat(refused(onEtcd("vesta.machine-id.etcd.tls.trust-certificates=" + missing),
                "vesta.machine-id.etcd.tls.trust-certificates"))
                .contains("vesta.machine-id.etcd.tls.trust-certificates=" + missing).contains("a readable PEM file");
        assertThat(refused(onEtcd("vesta.machine-id.etcd.tls.key-certificate=" + notPem,
                "vesta.machine-id.etcd.tls.private-key=" + missing), "vesta.machine-id.etcd.tls.private-key"))
                .contains("vesta.machine-id.etcd.tls.private-key=" + missing).contains("a readable PEM file");
        assertThat(refused(onEtcd("vesta.machine-id.etcd.tls.key-certificate=" + notPem,
                "vesta.machine-id.etcd.tls.private-key=" + notAKey), "vesta.machine-id.etcd.tls.key-certificate"))
                .contains("vesta.machine-id.etcd.tls.key-certificate=" + notPem).contains("PEM files that make a TLS context");
        assertThat(refused(onEtcd("vesta.machine-id.etcd.tls.key-certificate=" + notPem),
                "vesta.machine-id.etcd.tls.private-key"))
                .contains("vesta.machine-id.etcd.tls.private-key=(unset) is required when"
                        + " vesta.machine-id.etcd.tls.key-certificate is set");
        assertThat(refused(onEtcd("vesta.machine-id.etcd.tls.private-key=" + notPem),
                "vesta.machine-id.etcd.tls.key-certificate"))
                .contains("vesta.machine-id.etcd.tls.key-certificate=(unset) is required when"
                        + " vesta.machine-id.etcd.tls.private-key is set");
    }

    @Test
    void withoutVestaEtcdOrJetcdStartUpSaysWhatToAdd() throws Exception {
        for (String absent : new String[] { "io.vesta.machine.etcd", "io.etcd.jetcd" }) {
            runner.withClassLoader(new FilteredClassLoader(absent)).withPropertyValues("vesta.machine-id.strategy=etcd")
                    .run(context -> {
                        assertThat(context).hasFailed();
                        assertThat(context).getFailure().rootCause().isInstanceOfSatisfying(InvalidSettingException.class,
                                e -> assertThat(e.getMessage()).contains("vesta.machine-id.strategy=etcd needs"
                                        + " io.vesta:vesta-etcd (which brings jetcd), and it is not on the classpath"));
                        assertThat(new VestaFailureAnalyzer(new StandardEnvironment()).analyze(context.getStartupFailure())
                                .getAction()).contains("etcd with io.vesta:vesta-etcd on the classpath");
                    });
        }
    }

    @Test
    void aNodeWhoseEtcdIsOutOfReachAtStartUpIssuesUnderItsFallbackThenLeases() throws Exception {
        URI member = endpoints.get(0);
        try (TcpRelay relay = new TcpRelay(member.getHost(), member.getPort())) {
            relay.cut();
            onEtcdAt("http://127.0.0.1:" + relay.port(), "vesta.machine-id.etcd.owner=node-f",
                    "vesta.machine-id.etcd.lease=3s", "vesta.machine-id.etcd.heartbeat=1s",
                    "vesta.type=min-granularity", "vesta.machine-id.embedded-range.max=915",
                    "vesta.machine-id.fallback.value=916", "vesta.machine-id.fallback.check-interval=100ms").run(context -> {
                List<Long> ids = MachineIdFallbackTests.onTheFallback(context, "etcd");
                relay.restore();
                MachineIdFallbackTests.leasedOnceTheStoreAnswers(context.getBean(EmbeddedIdService.class), ids, "etcd");
                assertThat(entry(0)[4]).as("the lease in etcd").isEqualTo("node-f");
            });
        }
    }

    @Test
    void aFallbackInsideTheLeasedRangeIsRefusedAsWithTheOtherStores() throws Exception {
        assertThat(refused(onEtcd("vesta.machine-id.embedded-range.max=915", "vesta.machine-id.fallback.value=5"),
                "vesta.machine-id.fallback.value")).contains("vesta.machine-id.fallback.value=5")
                .contains("lies inside the machine-ID range [0, 915] (vesta.machine-id.embedded-range)")
                .contains("916-923");
    }

    /** The runner with this test's client as the application's bean, whose lifecycle (closing it) the test owns. */
    private ApplicationContextRunner applicationClient() {
        return runner.withBean(Client.class, () -> etcd, definition -> definition.setDestroyMethodName(""));
    }

    /** Start-up fails with an {@link InvalidSettingException} naming {@code setting}; the failure report's text. */
    private static String refused(ApplicationContextRunner runner, String setting) {
        String[] description = new String[1];
        runner.run(context -> description[0] = refused(context, setting));
        return description[0];
    }

    private static String refused(org.springframework.boot.test.context.assertj.AssertableApplicationContext context,
            String setting) {
        assertThat(context).hasFailed();
        assertThat(context).getFailure().rootCause().isInstanceOfSatisfying(InvalidSettingException.class,
                e -> assertThat(e.setting()).isEqualTo(setting));
        String description = new VestaFailureAnalyzer(new StandardEnvironment()).analyze(context.getStartupFailure())
                .getDescription();
        assertThat(description).contains(setting);
        return description;
    }

    /** The lease of {@code machineId} under this test's prefix: generation, lease expiry, high water, token, owner. */
    private String[] entry(long machineId) throws Exception {
        List<KeyValue> kvs = etcd.getKVClient().get(bytes(prefix + String.format("%04d", machineId)))
                .get(10, TimeUnit.SECONDS).getKvs();
        assertThat(kvs).as("the key of machine ID %d", machineId).hasSize(1);
        return kvs.get(0).getValue().toString(StandardCharsets.UTF_8).split("\\|", 5);
    }

    private static ByteSequence bytes(String text) {
        return ByteSequence.from(text, StandardCharsets.UTF_8);
    }
}
