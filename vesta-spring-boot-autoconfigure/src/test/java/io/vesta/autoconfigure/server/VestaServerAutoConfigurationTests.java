package io.vesta.autoconfigure.server;

import io.vesta.EmbeddedIdService;
import io.vesta.GenMethod;
import io.vesta.IdService;
import io.vesta.InvalidSettingException;
import io.vesta.autoconfigure.ThisHost;
import io.vesta.autoconfigure.VestaAutoConfiguration;
import io.vesta.machine.MachineIdProvider;
import io.vesta.machine.MachineIdRange;
import io.vesta.test.ManualTimeSource;
import io.vesta.time.FileTimestampStore;
import io.vesta.time.TimeSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.web.servlet.DispatcherServlet;

import javax.sql.DataSource;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

class VestaServerAutoConfigurationTests {

    private final WebApplicationContextRunner runner = new WebApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(VestaAutoConfiguration.class, VestaServerAutoConfiguration.class));

    @Test
    void theServerIsOffByDefault() {
        runner.withPropertyValues("vesta.machine-id.value=5").run(context -> {
            assertThat(context).doesNotHaveBean(ServerIdServices.class).doesNotHaveBean(VestaServerController.class)
                    .doesNotHaveBean(VestaBatchController.class);
            assertThat(context.getBean(EmbeddedIdService.class).genMethod()).isEqualTo(GenMethod.EMBEDDED);
        });
    }

    @Test
    void outsideAServletWebApplicationTheServerFailsStartUpSayingSo() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(VestaAutoConfiguration.class, VestaServerAutoConfiguration.class,
                        VestaServerWithoutMvcAutoConfiguration.class))
                .withPropertyValues("vesta.server.enabled=true", "vesta.machine-id.value=924")
                .run(context -> assertThat(context).getFailure().rootCause()
                        .isInstanceOfSatisfying(InvalidSettingException.class, e -> {
                            assertThat(e.setting()).isEqualTo("vesta.server.enabled");
                            assertThat(e.getMessage()).contains("needs a servlet web application, and this one is not");
                        }));
    }

    /** It used to start as an embedded node and fail, if at all, on the machine ID's range. */
    @Test
    void withoutSpringMvcTheServerFailsStartUpNamingTheStarter() {
        runner.withConfiguration(AutoConfigurations.of(VestaServerWithoutMvcAutoConfiguration.class))
                .withClassLoader(new FilteredClassLoader(DispatcherServlet.class))
                .withPropertyValues("vesta.server.enabled=true", "vesta.machine-id.value=5")
                .run(context -> assertThat(context).getFailure().rootCause()
                        .isInstanceOfSatisfying(InvalidSettingException.class, e -> {
                            assertThat(e.setting()).isEqualTo("vesta.server.enabled");
                            assertThat(e.value()).isEqualTo(true);
                            assertThat(e.getMessage()).contains("needs Spring MVC, and it is not on the classpath: add"
                                    + " org.springframework.boot:spring-boot-starter-webmvc");
                        }));
    }

    @Test
    void withSpringMvcTheServerStartsAndTheCheckStaysOut() {
        runner.withConfiguration(AutoConfigurations.of(VestaServerWithoutMvcAutoConfiguration.class))
                .withPropertyValues("vesta.server.enabled=true", "vesta.machine-id.value=924")
                .run(context -> assertThat(context).hasNotFailed().hasSingleBean(ServerIdServices.class)
                        .doesNotHaveBean(VestaServerWithoutMvcAutoConfiguration.class));
    }

    @Test
    void aServerWithoutIdsMustServeSegments() {
        runner.withPropertyValues("vesta.server.enabled=true", "vesta.server.ids-enabled=false")
                .run(context -> assertThat(context).getFailure().rootCause()
                        .isInstanceOfSatisfying(InvalidSettingException.class, e -> {
                            assertThat(e.setting()).isEqualTo("vesta.server.ids-enabled");
                            assertThat(e.getMessage()).contains("leaves the server nothing to serve");
                        }));
    }

    @Test
    void aServerIssuesRestAndClientIdsUnderOneServerRangeMachineId() {
        runner.withPropertyValues("vesta.server.enabled=true", "vesta.machine-id.value=924", "vesta.type=min-granularity")
                .run(context -> {
                    ServerIdServices services = context.getBean(ServerIdServices.class);
                    assertThat(services.rest().genMethod()).isEqualTo(GenMethod.REST);
                    assertThat(services.centralServer().genMethod()).isEqualTo(GenMethod.CENTRAL_SERVER);
                    assertThat(services.rest().machineId()).isEqualTo(924);
                    assertThat(services.centralServer().machineId()).isEqualTo(924);
                    assertThat(services.centralServer().type()).isEqualTo(services.rest().type());
                    assertThat(context).hasSingleBean(IdService.class).hasSingleBean(EmbeddedIdService.class)
                            .hasSingleBean(MachineIdProvider.class).hasSingleBean(VestaServerController.class)
                            .hasSingleBean(VestaBatchController.class).hasSingleBean(VestaServerExceptionHandler.class)
                            .hasBean("vestaGenIdServlet").doesNotHaveBean(VestaMakeIdController.class);
                    assertThat(context.getBean(IdService.class)).isSameAs(services.rest());
                });
    }

    @Test
    void makeIdIsServedOnlyWhenEnabled() {
        runner.withPropertyValues("vesta.server.enabled=true", "vesta.machine-id.value=924", "vesta.server.make-id-enabled=true",
                "vesta.server.admin-tokens=an-admin-token-of-some-length")
                .run(context -> assertThat(context).hasSingleBean(VestaMakeIdController.class));
    }

    @Test
    void anEmbeddedRangeMachineIdIsRefusedNamingTheServerRange() {
        runner.withPropertyValues("vesta.server.enabled=true", "vesta.machine-id.value=5").run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).rootCause().isInstanceOfSatisfying(InvalidSettingException.class, e -> {
                assertThat(e.setting()).isEqualTo("vesta.machine-id.value");
                assertThat(e.value()).isEqualTo(5L);
                assertThat(e.allowed()).isEqualTo("a machine ID in [924, 1023] (vesta.machine-id.server-range, for gen-method rest)");
            });
        });
    }

    @Test
    void anyStrategyGivesTheServerItsMachineIdFromTheServerRange() {
        runner.withPropertyValues("vesta.server.enabled=true", "vesta.machine-id.strategy=ip-list",
                "vesta.machine-id.ip-list=192.0.2.1," + ThisHost.routableAddress(), "vesta.machine-id.server-range.min=1000").run(context -> {
                    ServerIdServices services = context.getBean(ServerIdServices.class);
                    // Servers count down from the top: position 0 is 1023, position 1 1022.
                    assertThat(services.machineId()).isEqualTo(1022);
                    assertThat(services.centralServer().machineId()).isEqualTo(1022);
                    assertThat(services.rest().machineIdSource()).isEqualTo("ip-list (" + ThisHost.routableAddress() + " at position 1)");
                });
    }

    @Test
    void aDatabaseLeaseGivesBothGeneratorsOneServerRangeMachineId() {
        String table = "vesta_machine_server_" + System.nanoTime();
        runner.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class))
                .withPropertyValues("spring.datasource.url=jdbc:h2:mem:" + table + ";DB_CLOSE_DELAY=-1",
                        "vesta.server.enabled=true", "vesta.machine-id.strategy=db", "vesta.machine-id.db.table=" + table,
                        "vesta.machine-id.db.initialize-schema=always", "vesta.machine-id.db.owner=server-a",
                        // 1023's restart mark in the shared default directory is VestaServerMakeIdDisabledTests' while
                        // its context is cached: this test is about the lease, which starts after its own high water.
                        "vesta.time-store.enabled=false")
                .run(context -> {
                    ServerIdServices services = context.getBean(ServerIdServices.class);
                    // The top of the server range: servers lease from 1023 down.
                    assertThat(services.rest().machineId()).isEqualTo(1023);
                    assertThat(services.centralServer().machineId()).isEqualTo(1023);
                    assertThat(services.centralServer().machineIdLease()).isSameAs(services.rest().machineIdLease());
                    JdbcTemplate jdbc = new JdbcTemplate(context.getBean(DataSource.class));
                    assertThat(jdbc.queryForList("select machine_id from " + table + " where owner = 'server-a'", Long.class))
                            .as("one lease for both generators").containsExactly(1023L);
                });
    }

    @Test
    void theMachineIdIsAcquiredOnceAndReleasedWhenTheServerStops() {
        CountingProvider provider = new CountingProvider();
        runner.withBean(MachineIdProvider.class, () -> provider).withPropertyValues("vesta.server.enabled=true").run(context -> {
            assertThat(context.getBean(ServerIdServices.class).machineId()).isEqualTo(999);
            assertThat(provider.acquires).hasValue(1);
            assertThat(provider.closes).hasValue(0);
        });
        assertThat(provider.acquires).hasValue(1);
        assertThat(provider.closes).hasPositiveValue();
    }

    @Test
    void theTimeStoreKeepsTheHigherMarkOfTheTwoGeneratorsThroughAStop(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("vesta-time");
        ManualTimeSource clock = new ManualTimeSource(Instant.parse("2026-06-01T12:00:00.500Z"));
        runner.withBean(TimeSource.class, () -> clock)
                .withPropertyValues("vesta.server.enabled=true", "vesta.machine-id.value=924",
                        "vesta.time-store.file=" + file, "vesta.time-store.persist-step=10s")
                .run(context -> {
                    ServerIdServices services = context.getBean(ServerIdServices.class);
                    services.rest().genId();
                    clock.advance(Duration.ofSeconds(5));
                    services.centralServer().genId();
                    assertThat(mark(file)).isEqualTo(Instant.parse("2026-06-01T12:00:15Z"));
                });
        // Each generator wrote its exact mark on close; the REST one, closed last, must not lower the file below
        // the unit the client generator issued in.
        assertThat(mark(file)).isEqualTo(Instant.parse("2026-06-01T12:00:06Z"));
    }

    /** The highest mark of the file: one line per gen-method, so neither generator's close lowers the other's. */
    private static Instant mark(Path file) {
        return Instant.ofEpochMilli(new FileTimestampStore(file).load().orElseThrow());
    }

    @Test
    void aServerCannotBeAClient() {
        runner.withPropertyValues("vesta.server.enabled=true", "vesta.machine-id.value=924", "vesta.mode=client")
                .run(context -> assertThat(context.getStartupFailure()).rootCause()
                        .isInstanceOfSatisfying(InvalidSettingException.class, e -> {
                            assertThat(e.setting()).isEqualTo("vesta.mode");
                            assertThat(e).hasMessage("vesta.mode=client cannot be combined with"
                                    + " vesta.server.enabled=true; allowed: embedded: a central server issues IDs itself");
                        }));
    }

    @Test
    void anExplicitEmbeddedGenMethodIsRefusedOnAServer() {
        runner.withPropertyValues("vesta.server.enabled=true", "vesta.machine-id.value=924", "vesta.gen-method=embedded")
                .run(context -> assertThat(context.getStartupFailure()).rootCause()
                        .isInstanceOfSatisfying(InvalidSettingException.class, e -> {
                            assertThat(e.setting()).isEqualTo("vesta.gen-method");
                            assertThat(e).hasMessageContaining("does not apply to a central server");
                        }));
        runner.withPropertyValues("vesta.server.enabled=true", "vesta.machine-id.value=924", "vesta.gen-method=rest")
                .run(context -> assertThat(context).hasNotFailed());
    }

    @Test
    void anIdServiceOfTheUsersOwnIsKeptAndTheServerStillServes() {
        EmbeddedIdService own = EmbeddedIdService.builder().machineId(3).build();
        runner.withBean("myIdService", IdService.class, () -> own)
                .withPropertyValues("vesta.server.enabled=true", "vesta.machine-id.value=924").run(context -> {
                    assertThat(context.getBean(IdService.class)).isSameAs(own);
                    assertThat(context.getBean(ServerIdServices.class).machineId()).isEqualTo(924);
                    assertThat(context).hasSingleBean(VestaServerController.class);
                });
    }

    static class CountingProvider implements MachineIdProvider {

        final AtomicInteger acquires = new AtomicInteger();
        final AtomicInteger closes = new AtomicInteger();

        @Override
        public long acquire(MachineIdRange range, int blockSize) {
            MachineIdProvider.refuseBlocks(this, blockSize);
            acquires.incrementAndGet();
            return range.check("machineId", 999);
        }

        @Override
        public String describe() {
            return "counting";
        }

        @Override
        public void close() {
            closes.incrementAndGet();
        }
    }
}
