package io.vesta.layout;

import io.vesta.Id;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;

import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class IdCodecPropertiesTest {

    private final IdCodec codec = new IdCodec(IdCodec.DEFAULT_EPOCH);

    @Provide
    Arbitrary<Id> validIds() {
        return Arbitraries.integers().between(0, 1).flatMap(type -> {
            IdLayout layout = IdLayout.of(io.vesta.IdType.ofCode(type));
            return Combinators.combine(
                    Arbitraries.longs().between(0, IdLayout.MAX_MACHINE),
                    Arbitraries.longs().between(0, layout.maxSeq()),
                    Arbitraries.longs().between(0, layout.maxTime()),
                    Arbitraries.longs().between(0, IdLayout.MAX_GEN_METHOD),
                    Arbitraries.longs().between(0, IdLayout.MAX_VERSION))
                    .as((machine, seq, time, genMethod, version) -> new Id(machine, seq, time, genMethod, type, version));
        });
    }

    @Property(tries = 5000)
    void everyInRangeCombinationRoundTrips(@ForAll("validIds") Id fields) {
        long id = codec.makeId(fields.version(), fields.type(), fields.genMethod(), fields.time(), fields.seq(), fields.machine());

        assertThat(codec.expId(id)).isEqualTo(fields);
        assertThat(id < 0).isEqualTo(fields.version() == 1);
    }

    @Property(tries = 2000)
    void everyBitPatternDecodesAndRebuildsToItself(@ForAll long id) {
        Id fields = codec.expId(id);

        assertThat(codec.makeId(fields.version(), fields.type(), fields.genMethod(), fields.time(), fields.seq(), fields.machine()))
                .isEqualTo(id);
    }

    @Property(tries = 500)
    void machineAboveTenBitsIsRejected(@ForAll @LongRange(min = 1024, max = Long.MAX_VALUE) long machine,
            @ForAll @IntRange(min = 0, max = 1) int type) {
        assertThatIllegalArgumentException().isThrownBy(() -> codec.makeId(0, type, 0, 1, 1, machine))
                .withMessage("machine must be in [0, 1023], was " + machine);
    }

    @Property(tries = 500)
    void negativeFieldsAreRejected(@ForAll @LongRange(min = Long.MIN_VALUE, max = -1) long value) {
        assertThatIllegalArgumentException().isThrownBy(() -> codec.makeId(0, 0, 0, value, 0, 0))
                .withMessage("time must be in [0, 1073741823], was " + value);
        assertThatIllegalArgumentException().isThrownBy(() -> codec.makeId(0, 1, 0, 0, value, 0))
                .withMessage("seq must be in [0, 1023], was " + value);
        assertThatIllegalArgumentException().isThrownBy(() -> codec.makeId(0, 0, value, 0, 0, 0))
                .withMessage("genMethod must be in [0, 3], was " + value);
    }

    @Property(tries = 500)
    void seqAndTimeBeyondTheirTypesWidthAreRejected(@ForAll @LongRange(min = 0, max = 1L << 45) long extra) {
        long maxPeakSeq = IdLayout.MAX_PEAK.maxSeq() + 1 + extra;
        long minGranularitySeq = IdLayout.MIN_GRANULARITY.maxSeq() + 1 + extra;
        long maxPeakTime = IdLayout.MAX_PEAK.maxTime() + 1 + extra;
        long minGranularityTime = IdLayout.MIN_GRANULARITY.maxTime() + 1 + extra;

        assertThatIllegalArgumentException().isThrownBy(() -> codec.makeId(0, 0, 0, 0, maxPeakSeq, 0))
                .withMessage("seq must be in [0, 1048575], was " + maxPeakSeq);
        assertThatIllegalArgumentException().isThrownBy(() -> codec.makeId(0, 1, 0, 0, minGranularitySeq, 0))
                .withMessage("seq must be in [0, 1023], was " + minGranularitySeq);
        assertThatIllegalArgumentException().isThrownBy(() -> codec.makeId(0, 0, 0, maxPeakTime, 0, 0))
                .withMessage("time must be in [0, 1073741823], was " + maxPeakTime);
        assertThatIllegalArgumentException().isThrownBy(() -> codec.makeId(0, 1, 0, minGranularityTime, 0, 0))
                .withMessage("time must be in [0, 1099511627775], was " + minGranularityTime);
    }

    @Property(tries = 200)
    void versionAndTypeAreSingleBits(@ForAll @LongRange(min = 2, max = 1000) long value) {
        assertThatIllegalArgumentException().isThrownBy(() -> codec.makeId(value, 0, 0, 0, 0, 0))
                .withMessage("version must be in [0, 1], was " + value);
        assertThatIllegalArgumentException().isThrownBy(() -> codec.makeId(0, value, 0, 0, 0, 0))
                .withMessageStartingWith("type must be in [0, 1]");
    }

    @Property(tries = 500)
    void transTimeIsEpochPlusTimeInTheTypesUnit(@ForAll @LongRange(min = 0, max = (1L << 30) - 1) long time) {
        assertThat(codec.transTime(io.vesta.IdType.MAX_PEAK, time))
                .isEqualTo(Instant.ofEpochMilli(1420041600000L + time * 1000));
        assertThat(codec.transTime(io.vesta.IdType.MIN_GRANULARITY, time))
                .isEqualTo(Instant.ofEpochMilli(1420041600000L + time));
    }
}
