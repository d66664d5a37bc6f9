package io.vesta.sequence;

import io.vesta.ClockMovedBackwardsException;
import io.vesta.EmbeddedIdService;
import io.vesta.Id;
import io.vesta.IdService;
import io.vesta.IdType;
import io.vesta.layout.IdCodec;
import io.vesta.time.FileTimestampStore;
import io.vesta.test.ManualTimeSource;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Exhaustion, steps back and restarts, on a clock moved by hand. Every test runs for each sequencer. */
class TimeFaultsTests {

    private static final Instant START = Instant.parse("2026-06-01T12:00:00Z");

    private final ManualTimeSource clock = new ManualTimeSource(START);

    private EmbeddedIdService service(SequencerStrategy strategy, IdType type) {
        return EmbeddedIdService.builder().type(type).machineId(9).sequencer(strategy).timeSource(clock).build();
    }

    private long unitNow(IdType type) {
        return new IdCodec(IdCodec.DEFAULT_EPOCH).timeOf(type, clock.currentTimeMillis());
    }

    @ParameterizedTest
    @EnumSource(SequencerStrategy.class)
    void usedUpUnitWaitsForTheNextAndStartsItAtZero(SequencerStrategy strategy) {
        EmbeddedIdService service = service(strategy, IdType.MIN_GRANULARITY);
        long unit = unitNow(IdType.MIN_GRANULARITY);
        long last = 0;
        for (int i = 0; i < 1024; i++) {
            last = service.genId();
        }
        assertThat(service.expId(last).seq()).isEqualTo(1023);
        assertThat(clock.sleeps()).isZero();

        long next = service.genId();
        long after = service.genId();

        assertThat(clock.sleeps()).isEqualTo(1);
        assertThat(clock.now()).isEqualTo(START.plusMillis(1));
        assertThat(service.expId(next)).extracting(Id::time, Id::seq).containsExactly(unit + 1, 0L);
        assertThat(service.expId(after)).extracting(Id::time, Id::seq).containsExactly(unit + 1, 1L);
        assertThat(service.exhaustedWaits()).isEqualTo(1);
    }

    @ParameterizedTest
    @EnumSource(SequencerStrategy.class)
    void maxPeakUsedUpSecondWaitsForTheNextSecond(SequencerStrategy strategy) {
        clock.set(START.plusMillis(250));
        EmbeddedIdService service = service(strategy, IdType.MAX_PEAK);
        long first = service.genId();
        long last = first;
        for (int remaining = (1 << 20) - 1; remaining > 0; remaining -= IdService.MAX_BATCH) {
            long[] ids = service.genIds(Math.min(remaining, IdService.MAX_BATCH));
            last = ids[ids.length - 1];
        }
        assertThat(clock.sleeps()).isZero();
        long next = service.genId();

        assertThat(service.expId(last)).extracting(Id::time, Id::seq).containsExactly(service.expId(first).time(), (1L << 20) - 1);
        assertThat(clock.now()).isEqualTo(START.plusSeconds(1));
        assertThat(service.expId(next)).extracting(Id::time, Id::seq).containsExactly(service.expId(first).time() + 1, 0L);
    }

    @ParameterizedTest
    @EnumSource(SequencerStrategy.class)
    void smallStepBackIsWaitedOut(SequencerStrategy strategy) {
        EmbeddedIdService service = service(strategy, IdType.MIN_GRANULARITY);
        long before = service.genId();
        clock.advance(Duration.ofMillis(-4));

        long after = service.genId();

        assertThat(after).isGreaterThan(before);
        assertThat(clock.now()).isEqualTo(START);
        assertThat(service.clockBackwardSteps()).isEqualTo(1);
    }

    @ParameterizedTest
    @EnumSource(SequencerStrategy.class)
    void largeStepBackThrowsAndRecoversWhenTheClockCatchesUp(SequencerStrategy strategy) {
        EmbeddedIdService service = service(strategy, IdType.MIN_GRANULARITY);
        clock.advance(Duration.ofMillis(20));
        long before = service.genId();
        clock.advance(Duration.ofMillis(-50));

        assertThatThrownBy(service::genId)
                .isInstanceOfSatisfying(ClockMovedBackwardsException.class, e -> {
                    assertThat(e.lastTime()).isEqualTo(START.plusMillis(20));
                    assertThat(e.currentTime()).isEqualTo(START.minusMillis(30));
                    assertThat(e.behind()).isEqualTo(Duration.ofMillis(50));
                    assertThat(e.reservedBy()).as("behind IDs this generator issued").isEmpty();
                    assertThat(e.resumesAt()).isEqualTo(e.lastTime());
                })
                .hasMessageContaining("50 ms behind, beyond the maximum wait of 5 ms");
        assertThatThrownBy(() -> service.genIds(10)).isInstanceOf(ClockMovedBackwardsException.class);
        assertThat(service.clockHealthy()).isFalse();
        assertThat(service.clockBehind()).isEqualTo(Duration.ofMillis(50));
        assertThat(service.idsIssued()).isEqualTo(1);
        assertThat(clock.sleeps()).isZero();

        clock.advance(Duration.ofMillis(47));
        long waited = service.genId();
        clock.advance(Duration.ofMillis(10));
        long later = service.genId();

        assertThat(service.clockHealthy()).isTrue();
        assertThat(waited).isGreaterThan(before);
        assertThat(later).isGreaterThan(waited);
        assertThat(service.clockBackwardSteps()).isEqualTo(1);
    }

    @ParameterizedTest
    @EnumSource(SequencerStrategy.class)
    void maxPeakWaitsOutUpToASecondByDefault(SequencerStrategy strategy) {
        EmbeddedIdService service = service(strategy, IdType.MAX_PEAK);
        clock.advance(Duration.ofMillis(1500));
        long before = service.genId();
        clock.advance(Duration.ofMillis(-1400));

        long after = service.genId();

        assertThat(after).isGreaterThan(before);
        assertThat(clock.now()).isEqualTo(START.plusSeconds(1));

        clock.advance(Duration.ofMillis(-1500));
        assertThatThrownBy(service::genId).isInstanceOf(ClockMovedBackwardsException.class);
    }

    @ParameterizedTest
    @EnumSource(SequencerStrategy.class)
    void genIdsAcrossAUnitBoundaryFillsTheRestOfTheUnitThenTheNext(SequencerStrategy strategy) {
        EmbeddedIdService service = service(strategy, IdType.MIN_GRANULARITY);
        long unit = unitNow(IdType.MIN_GRANULARITY);
        for (int i = 0; i < 1000; i++) {
            service.genId();
        }

        long[] batch = service.genIds(3000);

        assertThat(batch).hasSize(3000);
        for (int i = 1; i < batch.length; i++) {
            assertThat(batch[i]).isGreaterThan(batch[i - 1]);
        }
        assertThat(service.expId(batch[0])).extracting(Id::time, Id::seq).containsExactly(unit, 1000L);
        assertThat(service.expId(batch[23])).extracting(Id::time, Id::seq).containsExactly(unit, 1023L);
        assertThat(service.expId(batch[24])).extracting(Id::time, Id::seq).containsExactly(unit + 1, 0L);
        assertThat(service.expId(batch[24 + 1024])).extracting(Id::time, Id::seq).containsExactly(unit + 2, 0L);
        assertThat(service.expId(batch[24 + 2 * 1024])).extracting(Id::time, Id::seq).containsExactly(unit + 3, 0L);
        assertThat(service.expId(batch[2999])).extracting(Id::time, Id::seq).containsExactly(unit + 3, 927L);
        assertThat(clock.sleeps()).isEqualTo(3);
        assertThat(service.idsIssued()).isEqualTo(4000);
    }

    @ParameterizedTest
    @EnumSource(SequencerStrategy.class)
    void restartWithClockBehindNeverRepeatsIds(SequencerStrategy strategy, @TempDir Path dir) {
        Path file = dir.resolve("vesta-time");
        Set<Long> issued = new HashSet<>();
        EmbeddedIdService first = EmbeddedIdService.builder().type(IdType.MIN_GRANULARITY).machineId(9)
                .sequencer(strategy).timeSource(clock).timestampStore(new FileTimestampStore(file)).build();
        for (int i = 0; i < 200; i++) {
            clock.advance(Duration.ofMillis(7));
            for (long id : first.genIds(50)) {
                issued.add(id);
            }
        }
        // A crash: no close(), so the stored mark is up to a persist step ahead of the last ID; the operating
        // system drops the dead process's lock on the store.
        first.timestampStore().close();
        Instant crashedAt = clock.now();
        clock.set(crashedAt.minus(Duration.ofMinutes(10)));

        EmbeddedIdService restarted = EmbeddedIdService.builder().type(IdType.MIN_GRANULARITY).machineId(9)
                .sequencer(strategy).timeSource(clock).timestampStore(new FileTimestampStore(file)).build();

        // Not a restart within the mark's reservation: the clock is further behind than any mark is saved ahead.
        assertThatThrownBy(restarted::genId).isInstanceOfSatisfying(ClockMovedBackwardsException.class, e -> {
            assertThat(e.reservedBy()).hasValueSatisfying(by -> assertThat(by).startsWith("the previous run under machine"
                    + " ID 9 may have issued IDs: the high-water mark it saved in the timestamp store file " + file.toAbsolutePath()));
            assertThat(e.resumesAt()).isEqualTo(e.lastTime()); // a mark in whole milliseconds
            assertThat(e.untilResume()).isEqualTo(e.behind()).isGreaterThan(Duration.ofMinutes(10));
            assertThat(e.getMessage()).startsWith("Not issuing yet: the clock has not reached the time reserved before"
                    + " this generator started.").contains("issuing resumes at " + e.resumesAt())
                    .endsWith("That is further than the persist step of 3000 ms, as far as a run saves its mark ahead:"
                            + " unless the previous run had a longer one, the clock is behind the clock of the run that"
                            + " saved the mark (set back while the node was down, or that run's clock was ahead).");
            assertThat(restarted.clockRefusal()).get().extracting(Throwable::getMessage).isEqualTo(e.getMessage());
        });
        clock.set(crashedAt.minusMillis(3)); // still behind the last issued ID
        assertThatThrownBy(restarted::genId).isInstanceOf(ClockMovedBackwardsException.class);

        clock.set(crashedAt.plus(EmbeddedIdService.DEFAULT_PERSIST_STEP).plusMillis(1));
        long[] after = restarted.genIds(5000);
        assertThat(Arrays.stream(after).filter(issued::contains)).isEmpty();
        assertThat(after[0]).isGreaterThan(issued.stream().mapToLong(Long::longValue).max().orElseThrow());
    }

    @ParameterizedTest
    @EnumSource(SequencerStrategy.class)
    void restartRightAfterACrashWaitsForTheStoredMark(SequencerStrategy strategy, @TempDir Path dir) {
        FileTimestampStore store = new FileTimestampStore(dir.resolve("mark"));
        EmbeddedIdService first = EmbeddedIdService.builder().type(IdType.MIN_GRANULARITY).machineId(9)
                .sequencer(strategy).timeSource(clock).timestampStore(store).build();
        long last = first.genId();
        assertThat(store.load()).hasValue(START.plus(EmbeddedIdService.DEFAULT_PERSIST_STEP).toEpochMilli());
        store.close(); // the process died without close(): only its lock goes, with it

        EmbeddedIdService restarted = EmbeddedIdService.builder().type(IdType.MIN_GRANULARITY).machineId(9)
                .sequencer(strategy).timeSource(clock).timestampStore(store).build();

        assertThat(clock.now()).isEqualTo(START.plus(EmbeddedIdService.DEFAULT_PERSIST_STEP));
        assertThat(restarted.genId()).isGreaterThan(last);
    }

    @ParameterizedTest
    @EnumSource(SequencerStrategy.class)
    void cleanCloseStoresTheExactMarkSoARestartNeedNotWait(SequencerStrategy strategy, @TempDir Path dir) {
        FileTimestampStore store = new FileTimestampStore(dir.resolve("mark"));
        EmbeddedIdService first = EmbeddedIdService.builder().type(IdType.MIN_GRANULARITY).machineId(9)
                .sequencer(strategy).timeSource(clock).timestampStore(store).build();
        long last = first.genId();
        first.close();
        assertThat(store.load()).hasValue(START.plusMillis(1).toEpochMilli());

        clock.advance(Duration.ofMillis(1));
        EmbeddedIdService restarted = EmbeddedIdService.builder().type(IdType.MIN_GRANULARITY).machineId(9)
                .sequencer(strategy).timeSource(clock).timestampStore(store).build();

        assertThat(clock.sleeps()).isZero();
        assertThat(restarted.genId()).isGreaterThan(last);
    }

    @ParameterizedTest
    @EnumSource(SequencerStrategy.class)
    void storedMarkIsWrittenAheadInCoarseSteps(SequencerStrategy strategy, @TempDir Path dir) {
        FileTimestampStore store = new FileTimestampStore(dir.resolve("mark"));
        EmbeddedIdService service = EmbeddedIdService.builder().type(IdType.MIN_GRANULARITY).machineId(9)
                .sequencer(strategy).timeSource(clock).timestampStore(store).persistStep(Duration.ofSeconds(2)).build();

        service.genId();
        assertThat(store.load()).hasValue(START.plusSeconds(2).toEpochMilli());
        clock.advance(Duration.ofMillis(1999));
        service.genId();
        assertThat(store.load()).hasValue(START.plusSeconds(2).toEpochMilli());
        clock.advance(Duration.ofMillis(1));
        service.genId();
        assertThat(store.load()).hasValue(START.plusSeconds(4).toEpochMilli());
    }
}
