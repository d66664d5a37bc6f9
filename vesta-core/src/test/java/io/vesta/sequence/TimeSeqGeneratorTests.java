package io.vesta.sequence;

import io.vesta.layout.IdCodec;
import io.vesta.layout.IdLayout;
import io.vesta.machine.MachineIdBlock;
import io.vesta.machine.PropertyMachineIdProvider;
import io.vesta.test.ManualTimeSource;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.time.Duration;
import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

class TimeSeqGeneratorTests {

    private static final Instant EPOCH = IdCodec.DEFAULT_EPOCH;
    private static final long UNIT = 5;

    private final ManualTimeSource clock = new ManualTimeSource(EPOCH.plusMillis(UNIT));

    private TimeSeqGenerator start(SequencerStrategy strategy) {
        return TimeSeqGenerator.start(strategy, clock, IdLayout.MIN_GRANULARITY, EPOCH, Duration.ofMillis(5), null,
                Duration.ofSeconds(3), MachineIdBlock.of(1), new PropertyMachineIdProvider(1));
    }

    @ParameterizedTest
    @EnumSource(SequencerStrategy.class)
    void nextPacksTheCurrentUnitWithTheNextSequenceNumber(SequencerStrategy strategy) {
        TimeSeqGenerator generator = start(strategy);

        assertThat(generator.next()).isEqualTo(UNIT << 10);
        assertThat(generator.next()).isEqualTo(UNIT << 10 | 1);
        assertThat(generator.issued()).isEqualTo(2);
        assertThat(generator.strategy()).isEqualTo(strategy);
        assertThat(generator.lastTime()).isEqualTo(EPOCH.plusMillis(UNIT));
    }

    @ParameterizedTest
    @EnumSource(SequencerStrategy.class)
    void aReservationGrantsAtMostTheRestOfTheUnit(SequencerStrategy strategy) {
        TimeSeqGenerator generator = start(strategy);
        long first = generator.reserve(1020);
        assertThat(generator.granted(first, 1020)).isEqualTo(1020);

        long rest = generator.reserve(10);

        assertThat(rest).isEqualTo(UNIT << 10 | 1020);
        assertThat(generator.granted(rest, 10)).isEqualTo(4);
    }

    @ParameterizedTest
    @EnumSource(SequencerStrategy.class)
    void aUsedUpUnitIsWaitedOutAndTheNextStartsAtZero(SequencerStrategy strategy) {
        TimeSeqGenerator generator = start(strategy);
        generator.reserve(1024);

        assertThat(generator.next()).isEqualTo((UNIT + 1) << 10);
        assertThat(generator.exhaustedWaits()).isEqualTo(1);
        assertThat(clock.now()).isEqualTo(EPOCH.plusMillis(UNIT + 1));
    }

    @ParameterizedTest
    @EnumSource(SequencerStrategy.class)
    void clockBehindIsMeasuredFromTheLastIssuedUnit(SequencerStrategy strategy) {
        TimeSeqGenerator generator = start(strategy);
        assertThat(generator.lastTime()).isNull();
        assertThat(generator.clockBehind()).isZero();
        generator.next();

        clock.advance(Duration.ofMillis(-3));

        assertThat(generator.clockBehind()).isEqualTo(Duration.ofMillis(3));
        assertThat(generator.maxBackwardWait()).isEqualTo(Duration.ofMillis(5));
    }

    @ParameterizedTest
    @EnumSource(SequencerStrategy.class)
    void nothingIsHandedOutAfterClose(SequencerStrategy strategy) {
        TimeSeqGenerator generator = start(strategy);
        generator.next();

        generator.close();
        generator.close();

        assertThat(generator.isClosed()).isTrue();
        assertThatIllegalStateException().isThrownBy(generator::next).withMessageContaining("was closed");
        assertThatIllegalStateException().isThrownBy(() -> generator.reserve(5)).withMessageContaining("was closed");
    }

    @ParameterizedTest
    @EnumSource(SequencerStrategy.class)
    void aBlockCountsTheMachineOffsetBelowTheSequenceNumber(SequencerStrategy strategy) {
        TimeSeqGenerator generator = TimeSeqGenerator.start(strategy, clock, IdLayout.MIN_GRANULARITY, EPOCH,
                Duration.ofMillis(5), null, Duration.ofSeconds(3), new MachineIdBlock(8, 4), new PropertyMachineIdProvider(8));
        long constantBits = IdLayout.MIN_GRANULARITY.constantBits(0, 0, 8);

        long[] ids = new long[6];
        for (int i = 0; i < ids.length; i++) {
            ids[i] = IdLayout.fromSlot(generator.next(), 2, constantBits);
        }

        IdCodec codec = new IdCodec(EPOCH);
        long[][] seqAndMachine = {{0, 8}, {0, 9}, {0, 10}, {0, 11}, {1, 8}, {1, 9}};
        for (int i = 0; i < ids.length; i++) {
            assertThat(codec.expId(ids[i]).seq()).as("seq of ID %d", i).isEqualTo(seqAndMachine[i][0]);
            assertThat(codec.expId(ids[i]).machine()).as("machine of ID %d", i).isEqualTo(seqAndMachine[i][1]);
            assertThat(codec.expId(ids[i]).time()).isEqualTo(UNIT);
        }
        assertThat(ids).isSorted();
        assertThat(generator.block()).isEqualTo(new MachineIdBlock(8, 4));
    }

    @ParameterizedTest
    @EnumSource(SequencerStrategy.class)
    void aBlockOfFourHasFourTimesTheSlotsOfAUnit(SequencerStrategy strategy) {
        TimeSeqGenerator generator = TimeSeqGenerator.start(strategy, clock, IdLayout.MIN_GRANULARITY, EPOCH,
                Duration.ofMillis(5), null, Duration.ofSeconds(3), new MachineIdBlock(0, 4), new PropertyMachineIdProvider(0));
        long first = generator.reserve(4000);
        assertThat(generator.granted(first, 4000)).isEqualTo(4000);

        long rest = generator.reserve(1000);

        assertThat(rest).isEqualTo(UNIT << 12 | 4000);
        assertThat(generator.granted(rest, 1000)).isEqualTo(96);
        assertThat(generator.next()).isEqualTo((UNIT + 1) << 12);
        assertThat(generator.exhaustedWaits()).isEqualTo(1);
        assertThat(generator.issued()).isEqualTo(4097);
    }
}
