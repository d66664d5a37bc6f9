package io.vesta.layout;

import io.vesta.Id;
import io.vesta.IdType;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.time.Instant;
import java.util.SplittableRandom;
import java.util.function.Function;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Properties of the codec over seeded random cases. Every run draws new cases from a new seed and prints it; each
 * case's name carries the seed too, so a failure is replayed exactly with {@code -Dvesta.test.seed=<seed>}.
 * The cases start with each range's edges and lean towards values near either end, where off-by-one and
 * sign mistakes live; version-1 IDs are negative longs, so both versions are always drawn.
 */
class IdCodecPropertiesTests {

    private static final long SEED = Long.getLong("vesta.test.seed", System.nanoTime());

    private final IdCodec codec = new IdCodec(IdCodec.DEFAULT_EPOCH);

    @BeforeAll
    static void printSeed() {
        System.out.println("IdCodecPropertiesTests seed " + SEED + " (replay with -Dvesta.test.seed=" + SEED + ")");
    }

    static Stream<Named<Id>> validIds() {
        // Every combination of each field's two edges, for both types: 2^5 * 2 cases before the random ones.
        Stream<Id> edges = IntStream.range(0, 64).mapToObj(bits -> {
            IdLayout layout = IdLayout.of(IdType.ofCode(bits & 1));
            return new Id(edge(bits, 1, IdLayout.MAX_MACHINE), edge(bits, 2, layout.maxSeq()), edge(bits, 3, layout.maxTime()),
                    edge(bits, 4, IdLayout.MAX_GEN_METHOD), layout.type().code(), edge(bits, 5, IdLayout.MAX_VERSION));
        });
        return cases("validIds", edges, 5000, random -> {
            IdLayout layout = IdLayout.of(IdType.ofCode(random.nextInt(2)));
            return new Id(longIn(random, 0, IdLayout.MAX_MACHINE), longIn(random, 0, layout.maxSeq()),
                    longIn(random, 0, layout.maxTime()), longIn(random, 0, IdLayout.MAX_GEN_METHOD), layout.type().code(),
                    random.nextInt(2));
        });
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("validIds")
    void everyInRangeCombinationRoundTrips(Id fields) {
        long id = codec.makeId(fields.version(), fields.type(), fields.genMethod(), fields.time(), fields.seq(), fields.machine());

        assertThat(codec.expId(id)).isEqualTo(fields);
        assertThat(id < 0).isEqualTo(fields.version() == 1);
    }

    static Stream<Named<Long>> anyBitPattern() {
        return cases("anyBitPattern", Stream.of(0L, -1L, 1L, Long.MIN_VALUE, Long.MAX_VALUE, 1L << IdLayout.TYPE_SHIFT,
                (1L << IdLayout.TYPE_SHIFT) - 1), 2000, SplittableRandom::nextLong);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("anyBitPattern")
    void everyBitPatternDecodesAndRebuildsToItself(long id) {
        Id fields = codec.expId(id);

        assertThat(codec.makeId(fields.version(), fields.type(), fields.genMethod(), fields.time(), fields.seq(), fields.machine()))
                .isEqualTo(id);
    }

    /** A machine value and the type of the ID it is tried in. */
    record MachineOfType(long machine, int type) {
    }

    static Stream<Named<MachineOfType>> machinesAboveTenBits() {
        return cases("machinesAboveTenBits", Stream.of(new MachineOfType(1024, 0), new MachineOfType(1024, 1),
                new MachineOfType(Long.MAX_VALUE, 0), new MachineOfType(Long.MAX_VALUE, 1)), 500,
                random -> new MachineOfType(longIn(random, 1024, Long.MAX_VALUE), random.nextInt(2)));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("machinesAboveTenBits")
    void machineAboveTenBitsIsRejected(MachineOfType tried) {
        assertThatIllegalArgumentException().isThrownBy(() -> codec.makeId(0, tried.type(), 0, 1, 1, tried.machine()))
                .withMessage("machine must be in [0, 1023], was " + tried.machine());
    }

    static Stream<Named<Long>> negatives() {
        return cases("negatives", Stream.of(Long.MIN_VALUE, -1L), 500, random -> longIn(random, Long.MIN_VALUE, -1));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("negatives")
    void negativeFieldsAreRejected(long value) {
        assertThatIllegalArgumentException().isThrownBy(() -> codec.makeId(0, 0, 0, value, 0, 0))
                .withMessage("time must be in [0, 1073741823], was " + value);
        assertThatIllegalArgumentException().isThrownBy(() -> codec.makeId(0, 1, 0, 0, value, 0))
                .withMessage("seq must be in [0, 1023], was " + value);
        assertThatIllegalArgumentException().isThrownBy(() -> codec.makeId(0, 0, value, 0, 0, 0))
                .withMessage("genMethod must be in [0, 3], was " + value);
    }

    static Stream<Named<Long>> beyondWidth() {
        return cases("beyondWidth", Stream.of(0L, 1L << 45), 500, random -> longIn(random, 0, 1L << 45));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("beyondWidth")
    void seqAndTimeBeyondTheirTypesWidthAreRejected(long extra) {
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

    static Stream<Named<Long>> aboveOneBit() {
        return cases("aboveOneBit", Stream.of(2L, 1000L), 200, random -> longIn(random, 2, 1000));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("aboveOneBit")
    void versionAndTypeAreSingleBits(long value) {
        assertThatIllegalArgumentException().isThrownBy(() -> codec.makeId(value, 0, 0, 0, 0, 0))
                .withMessage("version must be in [0, 1], was " + value);
        assertThatIllegalArgumentException().isThrownBy(() -> codec.makeId(0, value, 0, 0, 0, 0))
                .withMessageStartingWith("type must be in [0, 1]");
    }

    static Stream<Named<Long>> maxPeakTimes() {
        return cases("maxPeakTimes", Stream.of(0L, (1L << 30) - 1), 500, random -> longIn(random, 0, (1L << 30) - 1));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("maxPeakTimes")
    void transTimeIsEpochPlusTimeInTheTypesUnit(long time) {
        assertThat(codec.transTime(IdType.MAX_PEAK, time)).isEqualTo(Instant.ofEpochMilli(1420041600000L + time * 1000));
        assertThat(codec.transTime(IdType.MIN_GRANULARITY, time)).isEqualTo(Instant.ofEpochMilli(1420041600000L + time));
    }

    /**
     * The edge cases, then {@code count} random ones drawn from a generator of this source's own (so that one
     * source's cases do not depend on which other sources ran), each named with the seed.
     */
    private static <T> Stream<Named<T>> cases(String source, Stream<T> edges, int count, Function<SplittableRandom, T> draw) {
        SplittableRandom random = new SplittableRandom(SEED ^ source.hashCode());
        Stream<T> drawn = Stream.generate(() -> draw.apply(random)).limit(count);
        int[] index = {0};
        return Stream.concat(edges, drawn).map(value -> Named.of("seed " + SEED + " case " + index[0]++ + ": " + value, value));
    }

    /** Bit {@code bit} of {@code bits} picks 0 or {@code max}. */
    private static long edge(int bits, int bit, long max) {
        return (bits >> bit & 1) == 0 ? 0 : max;
    }

    /**
     * A value in {@code [min, max]}, the ends themselves a quarter of the time, otherwise at a distance from one
     * end drawn over every bit width alike, so that small distances are as likely as large ones. Needs
     * {@code max - min} not to overflow.
     */
    private static long longIn(SplittableRandom random, long min, long max) {
        switch (random.nextInt(8)) {
            case 0:
                return min;
            case 1:
                return max;
            default:
                long span = max - min;
                long distance = random.nextLong() >>> (64 - 1 - random.nextInt(63)); // 1 to 63 bits wide
                distance = span == Long.MAX_VALUE ? distance : distance % (span + 1);
                return random.nextBoolean() ? min + distance : max - distance;
        }
    }
}
