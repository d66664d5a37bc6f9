package io.vesta;

import io.vesta.layout.IdCodec;
import io.vesta.machine.MachineIdLease;
import io.vesta.machine.MachineIdProvider;
import io.vesta.machine.MachineIdUnavailableException;
import io.vesta.machine.MachineIdRange;
import io.vesta.sequence.SequencerStrategy;
import io.vesta.test.ManualTimeSource;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class EmbeddedIdServiceTests {

    private static final Instant NOW = Instant.parse("2026-06-01T12:00:00.123Z");
    private final ManualTimeSource clock = new ManualTimeSource(NOW);

    private EmbeddedIdServiceBuilder builder() {
        return EmbeddedIdService.builder().machineId(42).timeSource(clock);
    }

    @Test
    void genIdCarriesTheNodesFieldsAndTheCurrentTime() {
        EmbeddedIdService service = builder().type(IdType.MIN_GRANULARITY).genMethod(GenMethod.REST)
                .machineIdRange(MachineIdRange.EMBEDDED).version(1).sequencer(SequencerStrategy.CAS).build();

        long id = service.genId();
        Id fields = service.expId(id);

        assertThat(id).isNegative();
        assertThat(fields).isEqualTo(new Id(42, 0, NOW.toEpochMilli() - 1420041600000L, 2, 1, 1));
        assertThat(service.transTime(fields.time())).isEqualTo(NOW);
        assertThat(service.lastIssuedTime()).isEqualTo(NOW);
        assertThat(service.idsIssued()).isEqualTo(1);
    }

    @Test
    void maxPeakTimeIsInSecondsAndTransTimeGivesTheSecondsStart() {
        EmbeddedIdService service = builder().build();

        Id fields = service.expId(service.genId());

        assertThat(fields.time()).isEqualTo((NOW.toEpochMilli() - 1420041600000L) / 1000);
        assertThat(service.transTime(fields.time())).isEqualTo(Instant.parse("2026-06-01T12:00:00Z"));
    }

    @Test
    void decodeReadsAnIdOfTheOtherTypeInItsOwnTypesUnit() {
        EmbeddedIdService maxPeak = builder().build();
        long minGranularityId = builder().type(IdType.MIN_GRANULARITY).build().genId();

        DecodedId decoded = maxPeak.decode(minGranularityId);

        assertThat(decoded.idType()).isEqualTo(IdType.MIN_GRANULARITY);
        assertThat(decoded.instant()).isEqualTo(NOW);
        assertThat(decoded).isEqualTo(DecodedId.of(minGranularityId, maxPeak.codec()));
    }

    @Test
    void decodeOfAnIdServiceWithoutACodecReadsTheInstantInTheNodesType() {
        EmbeddedIdService embedded = builder().type(IdType.MIN_GRANULARITY).build();
        IdService withoutCodec = new IdService() {
            public long genId() { return embedded.genId(); }
            public long[] genIds(int count) { return embedded.genIds(count); }
            public Id expId(long id) { return embedded.expId(id); }
            public Instant transTime(long time) { return embedded.transTime(time); }
            public long makeId(long time, long seq) { return embedded.makeId(time, seq); }
            public long makeId(long time, long seq, long machine) { return embedded.makeId(time, seq, machine); }
            public long makeId(long genMethod, long time, long seq, long machine) {
                return embedded.makeId(genMethod, time, seq, machine);
            }
            public long makeId(long type, long genMethod, long time, long seq, long machine) {
                return embedded.makeId(type, genMethod, time, seq, machine);
            }
            public long makeId(long version, long type, long genMethod, long time, long seq, long machine) {
                return embedded.makeId(version, type, genMethod, time, seq, machine);
            }
        };
        long id = withoutCodec.genId();

        assertThat(withoutCodec.decode(id)).isEqualTo(embedded.decode(id));
        assertThat(withoutCodec.decode(id).idString()).isEqualTo(Long.toString(id));
    }

    @Test
    void makeIdFillsTheNodesOwnFields() {
        EmbeddedIdService service = builder().type(IdType.MIN_GRANULARITY).genMethod(GenMethod.CENTRAL_SERVER)
                .machineIdRange(MachineIdRange.EMBEDDED).build();

        assertThat(service.expId(service.makeId(77, 5))).isEqualTo(new Id(42, 5, 77, 1, 1, 0));
        assertThat(service.expId(service.makeId(77, 5, 900))).isEqualTo(new Id(900, 5, 77, 1, 1, 0));
        assertThat(service.expId(service.makeId(2, 77, 5, 900))).isEqualTo(new Id(900, 5, 77, 2, 1, 0));
        assertThat(service.expId(service.makeId(0, 2, 77, 5, 900))).isEqualTo(new Id(900, 5, 77, 2, 0, 0));
        assertThat(service.expId(service.makeId(1, 0, 2, 77, 5, 900))).isEqualTo(new Id(900, 5, 77, 2, 0, 1));
        assertThatIllegalArgumentException().isThrownBy(() -> service.makeId(77, 1024))
                .withMessage("seq must be in [0, 1023], was 1024");
    }

    @Test
    void genIdsCountIsChecked() {
        EmbeddedIdService service = builder().build();

        assertThatIllegalArgumentException().isThrownBy(() -> service.genIds(0))
                .withMessage("count must be in [1, 100000], was 0");
        assertThatIllegalArgumentException().isThrownBy(() -> service.genIds(100_001))
                .withMessage("count must be in [1, 100000], was 100001");
        assertThat(service.genIds(100_000)).hasSize(100_000).doesNotHaveDuplicates().isSorted();
    }

    @Test
    void serverGenMethodsDrawFromTheServerRangeByDefault() {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> builder().genMethod(GenMethod.CENTRAL_SERVER).build())
                .withMessage("machine-id.value=42 is outside the machine-ID range of gen-method central-server; allowed: a machine ID in"
                        + " [924, 1023] (machine-id.server-range, for gen-method central-server)");
        assertThat(builder().machineId(1000).genMethod(GenMethod.REST).build().machineId()).isEqualTo(1000);
        assertThatIllegalArgumentException().isThrownBy(() -> builder().machineId(1000).build())
                .withMessage("machine-id.value=1000 is outside the machine-ID range of gen-method embedded; allowed: a machine ID in"
                        + " [0, 923] (machine-id.embedded-range, for gen-method embedded)");
    }

    @Test
    void everySettingIsValidatedWithItsNameValueAndRange() {
        assertThatIllegalArgumentException().isThrownBy(() -> EmbeddedIdService.builder().timeSource(clock).build())
                .withMessage("machine-id.value=(unset) is required when no machine-ID provider is given; allowed: a machine ID in"
                        + " [0, 923] (machine-id.embedded-range, for gen-method embedded)");
        assertThatIllegalArgumentException().isThrownBy(() -> builder().version(2).build())
                .withMessage("version=2 is out of range; allowed: a value in [0, 1]");
        assertThatIllegalArgumentException().isThrownBy(() -> builder().maxBackwardWait(Duration.ofMillis(-1)).build())
                .withMessage("clock.max-backward-wait=-1ms is out of range; allowed: a duration in [0ms, 60000ms]");
        assertThatIllegalArgumentException().isThrownBy(() -> builder().maxBackwardWait(Duration.ofMinutes(2)).build())
                .withMessage("clock.max-backward-wait=120000ms is out of range; allowed: a duration in [0ms, 60000ms]");
        assertThatIllegalArgumentException().isThrownBy(() -> builder().persistStep(Duration.ZERO).build())
                .withMessage("time-store.persist-step=0ms is out of range; allowed: a duration in [1ms, 3600000ms]");
        assertThatIllegalArgumentException().isThrownBy(() -> builder().epoch(NOW.plusSeconds(1)).build())
                .withMessageStartingWith("epoch=2026-06-01T12:00:01.123Z is in the future; allowed: an instant in [")
                .withMessageContaining("2026-06-01T12:00:00.123Z] for type max-peak: not in the future");
        assertThatIllegalArgumentException().isThrownBy(() -> builder().type(null).build())
                .withMessage("type=(unset) is required; allowed: max-peak or min-granularity");
    }

    @Test
    void settingsAreNamedUnderThePrefixTheCallerGivesWithTheirValueAndWhatIsAllowed() {
        assertRefused(builder().settingPrefix("vesta.").machineId(1000), "vesta.machine-id.value", 1000L,
                "a machine ID in [0, 923] (vesta.machine-id.embedded-range, for gen-method embedded)");
        assertRefused(builder().settingPrefix("vesta.").machineIdRange(0, 1024), "vesta.machine-id.embedded-range.max", 1024L,
                "a value in [0, 1023]: not below vesta.machine-id.embedded-range.min (0)");
        assertRefused(builder().settingPrefix("vesta.").genMethod(GenMethod.REST).machineIdRange(-1, 5),
                "vesta.machine-id.server-range.min", -1L, "a value in [0, 1023]");
        assertRefused(builder().settingPrefix("vesta.").version(2), "vesta.version", 2L, "a value in [0, 1]");
        assertRefused(builder().settingPrefix("vesta.").maxBackwardWait(Duration.ofMinutes(2)), "vesta.clock.max-backward-wait",
                "120000ms", "a duration in [0ms, 60000ms]");
        assertRefused(builder().settingPrefix("vesta.").persistStep(null), "vesta.time-store.persist-step", null,
                "a duration in [1ms, 3600000ms]");
        assertRefused(builder().settingPrefix("vesta.").sequencer(null), "vesta.sequencer", null, "lock, synchronized or cas");
        assertRefused(builder().settingPrefix("vesta.").genMethod(null), "vesta.gen-method", null,
                "embedded, central-server or rest");
        assertThatThrownBy(() -> builder().settingPrefix("vesta.").epoch(NOW.plusSeconds(1)).build())
                .isInstanceOfSatisfying(InvalidSettingException.class, e -> {
                    assertThat(e.setting()).isEqualTo("vesta.epoch");
                    assertThat(e.value()).isEqualTo(NOW.plusSeconds(1));
                });
        assertThat(builder().settingPrefix("vesta.").machineIdRange(100, 200).machineId(150).build().machineId()).isEqualTo(150);
    }

    private static void assertRefused(EmbeddedIdServiceBuilder builder, String setting, Object value, String allowed) {
        assertThatThrownBy(builder::build).isInstanceOfSatisfying(InvalidSettingException.class, e -> {
            assertThat(e.setting()).isEqualTo(setting);
            assertThat(e.value()).isEqualTo(value);
            assertThat(e.allowed()).isEqualTo(allowed);
        });
    }

    @Test
    void unsetSettingsTakeTheEngineDefaults() {
        EmbeddedIdService service = builder().build();

        assertThat(service.type()).isEqualTo(EmbeddedIdService.DEFAULT_TYPE);
        assertThat(service.genMethod()).isEqualTo(EmbeddedIdService.DEFAULT_GEN_METHOD);
        assertThat(service.version()).isEqualTo(EmbeddedIdService.DEFAULT_VERSION);
        assertThat(service.epoch()).isEqualTo(IdCodec.DEFAULT_EPOCH);
        assertThat(service.sequencerStrategy()).isEqualTo(EmbeddedIdService.DEFAULT_SEQUENCER);
        assertThat(service.maxBackwardWait()).isEqualTo(EmbeddedIdService.DEFAULT_MAX_BACKWARD_WAIT_MAX_PEAK)
                .isEqualTo(EmbeddedIdService.defaultMaxBackwardWait(IdType.MAX_PEAK));
        assertThat(builder().type(IdType.MIN_GRANULARITY).build().maxBackwardWait())
                .isEqualTo(EmbeddedIdService.DEFAULT_MAX_BACKWARD_WAIT_MIN_GRANULARITY);
    }

    @Test
    void epochWhoseTimeFieldHasRunOutIsRejected() {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> builder().epoch(Instant.parse("1980-01-01T00:00:00Z")).build())
                .withMessage("epoch=1980-01-01T00:00:00Z is too far in the past; allowed: an instant in [1992-05-22T22:22:56.124Z,"
                        + " 2026-06-01T12:00:00.123Z] for type max-peak: not in the future, and recent enough that its 30-bit"
                        + " time field of 1000 ms units still holds the current time");
    }

    @Test
    void aConfigurableEpochShiftsTheTimeField() {
        Instant epoch = Instant.parse("2026-01-01T00:00:00Z");
        EmbeddedIdService service = builder().type(IdType.MIN_GRANULARITY).epoch(epoch).build();

        Id fields = service.expId(service.genId());

        assertThat(fields.time()).isEqualTo(NOW.toEpochMilli() - epoch.toEpochMilli());
        assertThat(service.transTime(fields.time())).isEqualTo(NOW);
    }

    @Test
    void closeReleasesTheMachineIdAndAFailedBuildDoesToo() {
        AtomicBoolean closed = new AtomicBoolean();
        MachineIdProvider provider = new MachineIdProvider() {
            @Override
            public long acquire(MachineIdRange range, int blockSize) {
                MachineIdProvider.refuseBlocks(this, blockSize);
                return 7;
            }

            @Override
            public String describe() {
                return "test";
            }

            @Override
            public void close() {
                closed.set(true);
            }
        };
        EmbeddedIdService service = builder().machineIdProvider(provider).build();
        assertThat(service.machineIdSource()).isEqualTo("test");
        service.close();
        assertThat(closed).isTrue();

        closed.set(false);
        assertThatThrownBy(() -> builder().machineIdProvider(provider).machineIdRange(new MachineIdRange(100, 200)).build())
                .hasMessage("machine-id.embedded-range=100-200 does not hold machine ID 7, which the machine-ID provider test returned;"
                        + " allowed: a range that holds the machine IDs the machine-ID provider hands out");
        assertThat(closed).isTrue();
    }

    private static MachineIdProvider leasedProvider(MachineIdLease lease, Long notBefore) {
        return new MachineIdProvider() {
            @Override
            public long acquire(MachineIdRange range, int blockSize) {
                MachineIdProvider.refuseBlocks(this, blockSize);
                return 11;
            }

            @Override
            public String describe() {
                return "leased";
            }

            @Override
            public MachineIdLease lease() {
                return lease;
            }

            @Override
            public OptionalLong notBefore() {
                return notBefore == null ? OptionalLong.empty() : OptionalLong.of(notBefore);
            }
        };
    }

    @Test
    void noIdIsIssuedOnceTheLeaseRunsOutOrIsRevokedUntilItIsRenewed() {
        MachineIdLease lease = new MachineIdLease(NOW.plusMillis(10).toEpochMilli());
        EmbeddedIdService service = builder().type(IdType.MIN_GRANULARITY).machineIdProvider(leasedProvider(lease, null)).build();
        service.genId();

        clock.advance(Duration.ofMillis(10));
        assertThatThrownBy(service::genId).isInstanceOf(MachineIdUnavailableException.class)
                .hasMessage("Machine ID 11 is not held by this node at 2026-06-01T12:00:00.133Z: its lease expired at "
                        + "2026-06-01T12:00:00.133Z and has not been renewed. No ID is issued until the lease is held again.");
        assertThatThrownBy(() -> service.genIds(5)).isInstanceOf(MachineIdUnavailableException.class);

        lease.renew(NOW.plusSeconds(10).toEpochMilli());
        assertThat(service.genId()).isPositive();

        lease.revoke("the database did not answer the heartbeat");
        assertThatThrownBy(service::genId).hasMessageContaining(": the database did not answer the heartbeat.");
        assertThat(service.idsIssued()).isEqualTo(2);
    }

    @Test
    void aTakenOverIdStartsAfterThePreviousOwnersMark() {
        long previousOwnersMark = NOW.plusMillis(3).toEpochMilli();
        EmbeddedIdService service = builder().type(IdType.MIN_GRANULARITY)
                .machineIdProvider(leasedProvider(new MachineIdLease(Long.MAX_VALUE - 1), previousOwnersMark)).build();

        assertThat(clock.now()).isEqualTo(NOW.plusMillis(3));
        assertThat(service.transTime(service.expId(service.genId()).time())).isEqualTo(NOW.plusMillis(3));
    }
}
