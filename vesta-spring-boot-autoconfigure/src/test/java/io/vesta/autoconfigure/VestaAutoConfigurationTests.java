package io.vesta.autoconfigure;

import io.vesta.EmbeddedIdService;
import io.vesta.GenMethod;
import io.vesta.Id;
import io.vesta.IdService;
import io.vesta.IdType;
import io.vesta.layout.IdCodec;
import io.vesta.machine.MachineIdProvider;
import io.vesta.machine.MachineIdUnavailableException;
import io.vesta.machine.StatefulSetMachineIdProvider;
import io.vesta.machine.MachineIdRange;
import io.vesta.sequence.SequencerStrategy;
import io.vesta.ClockMovedBackwardsException;
import io.vesta.time.FileTimestampStore;
import io.vesta.test.ManualTimeSource;
import io.vesta.time.TimeSource;
import io.vesta.time.TimestampStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class VestaAutoConfigurationTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(VestaAutoConfiguration.class));

    @Test
    void aMachineIdIsAllItTakesToGetAnIdService() {
        runner.withPropertyValues("vesta.machine-id.value=5").run(context -> {
            assertThat(context).hasSingleBean(IdService.class);
            EmbeddedIdService service = context.getBean(EmbeddedIdService.class);
            assertThat(service.type()).isEqualTo(IdType.MAX_PEAK);
            assertThat(service.machineId()).isEqualTo(5);
            assertThat(service.machineIdSource()).isEqualTo("property");
            assertThat(service.genMethod()).isEqualTo(GenMethod.EMBEDDED);
            assertThat(service.sequencerStrategy()).isEqualTo(SequencerStrategy.CAS);
            assertThat(service.machineIdBlock().size()).isEqualTo(1);
            assertThat(service.epoch()).isEqualTo(IdCodec.DEFAULT_EPOCH);
            assertThat(service.maxBackwardWait()).isEqualTo(Duration.ofSeconds(1));
            assertThat(service.expId(service.genId()).machine()).isEqualTo(5);
        });
    }

    @Test
    void everyPropertyReachesTheEngine() {
        runner.withPropertyValues("vesta.type=min-granularity", "vesta.sequencer=synchronized", "vesta.gen-method=rest",
                "vesta.machine-id.value=1000", "vesta.version=1", "vesta.epoch=2020-01-01T08:00:00+08:00",
                "vesta.clock.max-backward-wait=20ms").run(context -> {
                    EmbeddedIdService service = context.getBean(EmbeddedIdService.class);
                    assertThat(service.type()).isEqualTo(IdType.MIN_GRANULARITY);
                    assertThat(service.sequencerStrategy()).isEqualTo(SequencerStrategy.SYNCHRONIZED);
                    assertThat(service.epoch()).isEqualTo(Instant.parse("2020-01-01T00:00:00Z"));
                    assertThat(service.maxBackwardWait()).isEqualTo(Duration.ofMillis(20));
                    long id = service.genId();
                    assertThat(id).isNegative();
                    assertThat(service.expId(id)).extracting(Id::machine, Id::genMethod, Id::type, Id::version)
                            .containsExactly(1000L, 2L, 1L, 1L);
                });
    }

    @Test
    void aBlockOfMachineIdsIsIssuedUnderWithEveryStrategyThatFixesIt() {
        runner.withPropertyValues("vesta.machine-id.value=932", "vesta.gen-method=rest", "vesta.machine-id.block-size=8")
                .run(context -> {
                    EmbeddedIdService service = context.getBean(EmbeddedIdService.class);
                    assertThat(service.machineIdBlock()).hasToString("932-939");
                    assertThat(java.util.Arrays.stream(service.genIds(16)).map(id -> service.expId(id).machine()).distinct()
                            .sorted().toArray()).containsExactly(932, 933, 934, 935, 936, 937, 938, 939);
                });
        runner.withPropertyValues("vesta.machine-id.strategy=ip-list", "vesta.machine-id.ip-list=192.0.2.1,"
                + ThisHost.routableAddress(), "vesta.machine-id.block-size=4")
                .run(context -> assertThat(context.getBean(EmbeddedIdService.class).machineIdBlock()).hasToString("4-7"));
    }

    @Test
    void aFirstMachineIdThatStartsNoBlockFailsStartUpNamingBothProperties() {
        runner.withPropertyValues("vesta.machine-id.value=930", "vesta.gen-method=rest", "vesta.machine-id.block-size=8")
                .run(context -> assertThat(context).getFailure().rootCause()
                        .hasMessage("vesta.machine-id.value=930 does not start a block of 8 aligned from 924 inside the"
                                + " machine-ID range of gen-method rest; allowed: the first machine ID of one of the 12 blocks"
                                + " of 8 aligned from 924 in [924, 1023]: 924, 932, ..., 1012"
                                + " (vesta.machine-id.server-range, vesta.machine-id.block-size 8, for gen-method rest)"));
        runner.withPropertyValues("vesta.machine-id.value=0", "vesta.machine-id.block-size=6")
                .run(context -> assertThat(context).getFailure().rootCause()
                        .hasMessage("vesta.machine-id.block-size=6 is not a power of two in [1, 64]; allowed: 1, 2, 4, 8,"
                                + " 16, 32 or 64"));
    }

    @Test
    void rangesAreConfigurable() {
        runner.withPropertyValues("vesta.machine-id.value=950", "vesta.machine-id.embedded-range.max=999",
                "vesta.machine-id.server-range.min=1000").run(context ->
                        assertThat(context.getBean(EmbeddedIdService.class).machineId()).isEqualTo(950));
    }

    @Test
    void ipListStrategyUsesThePositionOfThisHostsAddress() {
        runner.withPropertyValues("vesta.machine-id.strategy=ip-list", "vesta.machine-id.ip-list=192.0.2.1," + ThisHost.routableAddress(),
                "vesta.machine-id.embedded-range.min=100").run(context -> {
                    EmbeddedIdService service = context.getBean(EmbeddedIdService.class);
                    assertThat(service.machineId()).isEqualTo(101);
                    assertThat(service.machineIdSource()).isEqualTo("ip-list (" + ThisHost.routableAddress() + " at position 1)");
                });
    }

    @Test
    void kubernetesStatefulSetStrategyReadsTheOrdinalAndSaysWhereItLooked() {
        String unset = "VESTA_TEST_NO_SUCH_ORDINAL_" + Long.toHexString(System.nanoTime());
        runner.withPropertyValues("vesta.machine-id.strategy=kubernetes-statefulset",
                "vesta.machine-id.kubernetes.ordinal-variable=" + unset).run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(context.getStartupFailure()).rootCause().isInstanceOf(MachineIdUnavailableException.class)
                            .hasMessageContaining("The environment variable " + unset
                                    + " (vesta.machine-id.kubernetes.ordinal-variable) is not set");
                });
        // This test's host is no StatefulSet pod, unless its name ends in -N.
        String host = StatefulSetMachineIdProvider.localHostName();
        if (host != null && !host.matches(".+-\\d{1,7}")) {
            runner.withPropertyValues("vesta.machine-id.strategy=kubernetes-statefulset").run(context -> assertThat(context)
                    .getFailure().rootCause().hasMessageContaining("The host name '" + host + "' has no StatefulSet ordinal"));
        }
    }

    @Test
    void timeStoreFileKeepsTheHighWaterMark(@TempDir Path dir) {
        Path file = dir.resolve("vesta-time");
        runner.withPropertyValues("vesta.machine-id.value=5", "vesta.time-store.file=" + file,
                "vesta.time-store.persist-step=10s").run(context -> {
                    assertThat(context).hasSingleBean(TimestampStore.class);
                    long before = System.currentTimeMillis();
                    context.getBean(IdService.class).genId();
                    // The highest mark of the file's lines (one per version, type and gen-method).
                    long mark = new FileTimestampStore(file).load().orElseThrow();
                    assertThat(mark).isBetween(before + 9_000, System.currentTimeMillis() + 10_000);
                });
        assertThat(file).exists();
    }

    @Test
    void byDefaultTheMarkIsKeptInAFileOfTheTemporaryDirectoryNamedByTheGenerator() {
        runner.withPropertyValues("vesta.machine-id.value=17", "vesta.type=min-granularity").run(context -> {
            assertThat(context).doesNotHaveBean(TimestampStore.class);
            EmbeddedIdService service = context.getBean(EmbeddedIdService.class);
            service.genId();
            assertThat(((FileTimestampStore) service.timestampStore()).file()).isEqualTo(Path.of(
                    System.getProperty("java.io.tmpdir"), "vesta", "vesta-machine-17-embedded.mark"));
            assertThat(((FileTimestampStore) service.timestampStore()).file()).exists();
        });
    }

    @Test
    void byDefaultARestartWithTheClockSetBackDoesNotRepeatIds(@TempDir Path dir) {
        ManualTimeSource clock = new ManualTimeSource(Instant.parse("2026-06-01T12:00:00Z"));
        ApplicationContextRunner node = runner.withBean(TimeSource.class, () -> clock)
                .withPropertyValues("vesta.machine-id.value=5", "vesta.time-store.directory=" + dir);
        long[] before = new long[1];
        node.run(context -> before[0] = context.getBean(IdService.class).genId());

        clock.advance(Duration.ofMinutes(-10)); // NTP set the clock back while the node was down
        node.run(context -> {
            IdService service = context.getBean(IdService.class);
            assertThatThrownBy(service::genId).isInstanceOf(ClockMovedBackwardsException.class);
            clock.advance(Duration.ofMinutes(10).plusSeconds(1));
            assertThat(service.genId()).isGreaterThan(before[0]);
        });
    }

    @Test
    void theMarkCanBeSwitchedOff(@TempDir Path dir) {
        runner.withPropertyValues("vesta.machine-id.value=5", "vesta.time-store.enabled=false",
                "vesta.time-store.directory=" + dir).run(context -> {
                    EmbeddedIdService service = context.getBean(EmbeddedIdService.class);
                    service.genId();
                    assertThat(service.timestampStore()).isNull();
                    assertThat(dir).isEmptyDirectory();
                });
    }

    @Test
    void twoContextsUnderOneMachineIdOnOneHostAreRefused(@TempDir Path dir) {
        ApplicationContextRunner node = runner.withPropertyValues("vesta.machine-id.value=5", "vesta.time-store.directory=" + dir);
        node.run(first -> node.run(second -> assertThat(second).getFailure().rootCause()
                .hasMessageContaining("in use by another generator")));
    }

    @Test
    void anIdServiceOfTheUsersOwnWinsAndNeedsNoMachineId() {
        runner.withUserConfiguration(OwnIdService.class).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context.getBeanNamesForType(IdService.class)).containsExactly("myIdService");
            assertThat(context).doesNotHaveBean(MachineIdProvider.class);
            assertThat(context.getBean(IdService.class)).isSameAs(context.getBean(OwnIdService.class).service);
        });
    }

    @Test
    void aMachineIdProviderOfTheUsersOwnIsUsedAndReleasedWhenTheContextCloses() {
        TrackedProvider provider = new TrackedProvider();
        runner.withBean(MachineIdProvider.class, () -> provider).run(context -> {
            assertThat(context.getBean(EmbeddedIdService.class).machineId()).isEqualTo(321);
            assertThat(provider.closed).isFalse();
        });
        assertThat(provider.closed).isTrue();
    }

    @Test
    void aTimeSourceOfTheUsersOwnDrivesTheClock() {
        ManualTimeSource clock = new ManualTimeSource(Instant.parse("2030-05-05T05:05:05Z"));
        // A clock of the test's own writes marks at its own times: kept out of the shared directory.
        runner.withBean(TimeSource.class, () -> clock).withPropertyValues("vesta.machine-id.value=5",
                "vesta.time-store.enabled=false").run(context -> {
            IdService service = context.getBean(IdService.class);
            assertThat(service.transTime(service.expId(service.genId()).time())).isEqualTo(clock.now());
        });
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnIdService {

        final EmbeddedIdService service = EmbeddedIdService.builder().machineId(1).build();

        @Bean
        IdService myIdService() {
            return service;
        }
    }

    static class TrackedProvider implements MachineIdProvider {

        volatile boolean closed;

        @Override
        public long acquire(MachineIdRange range, int blockSize) {
            MachineIdProvider.refuseBlocks(this, blockSize);
            return 321;
        }

        @Override
        public String describe() {
            return "tracked";
        }

        @Override
        public void close() {
            closed = true;
        }
    }
}
