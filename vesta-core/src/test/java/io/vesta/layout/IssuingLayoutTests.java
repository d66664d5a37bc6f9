package io.vesta.layout;

import io.vesta.GenMethod;
import io.vesta.IdType;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The rule of {@link IssuingLayout#canRepeatIdsOf} and {@link IssuingLayout#markCovering}, checked against the IDs
 * themselves: for every pair of layouts (both versions, both types, every gen-method, epochs moved by less than a unit,
 * whole units and many units either way), the IDs one machine ID issues under each over a few units are built with
 * {@link IdCodec#makeId} and compared as sets.
 */
class IssuingLayoutTests {

    private static final long MACHINE = 5;
    private static final long BASE_EPOCH = Instant.parse("2024-01-01T00:00:00Z").toEpochMilli();
    /** Epoch shifts in ms: within a unit, whole units and several of each type. */
    private static final long[] SHIFTS = {-7000, -2500, -1000, -999, -7, -1, 0, 1, 7, 999, 1000, 2500, 7000};
    private static final int UNITS = 4;
    private static final int SEQS = 3;

    private static List<IssuingLayout> layouts(long epochMillis) {
        List<IssuingLayout> layouts = new ArrayList<>();
        for (long version = 0; version <= 1; version++) {
            for (IdType type : IdType.values()) {
                for (GenMethod genMethod : GenMethod.values()) {
                    layouts.add(new IssuingLayout(version, type, genMethod, Instant.ofEpochMilli(epochMillis)));
                }
            }
        }
        return layouts;
    }

    /** The IDs {@code layout} issues for MACHINE in the units holding {@code fromMillis} to {@code toMillis}. */
    private static Set<Long> ids(IssuingLayout layout, long fromUnit, long toUnit) {
        IdCodec codec = new IdCodec(layout.epoch());
        Set<Long> ids = new HashSet<>();
        for (long unit = Math.max(0, fromUnit); unit <= toUnit; unit++) {
            for (long seq = 0; seq < SEQS; seq++) {
                ids.add(codec.makeId(layout.version(), layout.type().code(), layout.genMethod().code(), unit, seq, MACHINE));
            }
        }
        return ids;
    }

    private static boolean intersect(Set<Long> a, Set<Long> b) {
        return a.stream().anyMatch(b::contains);
    }

    @Test
    void twoLayoutsMakeTheSameIdExactlyWhenTheirHighBitsAgreeAndTheirTimeFieldsOverlap() {
        long start = BASE_EPOCH + 3_600_000; // the old layout issues from here for a few units
        int pairs = 0;
        int colliding = 0;
        for (long shift : SHIFTS) {
            for (IssuingLayout old : layouts(BASE_EPOCH)) {
                for (IssuingLayout next : layouts(BASE_EPOCH + shift)) {
                    long oldFirst = old.unitOf(start);
                    long oldLast = oldFirst + UNITS - 1;
                    // The new layout runs over the same stretch of wall-clock time, unit by unit.
                    long nextFirst = next.unitOf(start);
                    long nextLast = next.unitOf(old.startOf(oldLast + 1) - 1);
                    boolean collide = intersect(ids(old, oldFirst, oldLast), ids(next, nextFirst, nextLast));
                    boolean predicted = next.canRepeatIdsOf(old) && nextFirst <= oldLast && nextLast >= oldFirst;
                    assertThat(collide).as("%s then %s", old, next).isEqualTo(predicted);
                    pairs++;
                    colliding += collide ? 1 : 0;
                }
            }
        }
        assertThat(pairs).isEqualTo(SHIFTS.length * 2 * IdType.values().length * GenMethod.values().length
                * 2 * IdType.values().length * GenMethod.values().length);
        assertThat(colliding).as("pairs that collide").isPositive().isLessThan(pairs);
    }

    @Test
    void differentVersionTypeOrGenMethodNeverMakeTheSameIdWhateverTheEpochs() {
        for (long shift : SHIFTS) {
            for (IssuingLayout old : layouts(BASE_EPOCH)) {
                for (IssuingLayout next : layouts(BASE_EPOCH + shift)) {
                    if (next.highBits() == old.highBits()) {
                        continue;
                    }
                    assertThat(next.canRepeatIdsOf(old)).isFalse();
                    // Every unit of each, from the epoch on: the time fields overlap in full and still no ID is equal.
                    assertThat(intersect(ids(old, 0, 20), ids(next, 0, 20))).as("%s and %s", old, next).isFalse();
                }
            }
        }
    }

    @Test
    void aGeneratorStartedAfterTheCoveringMarkNeverRepeatsAnIdOfTheEarlierLayout() {
        long start = BASE_EPOCH + 3_600_000;
        for (long shift : SHIFTS) {
            for (IssuingLayout old : layouts(BASE_EPOCH)) {
                for (IssuingLayout next : layouts(BASE_EPOCH + shift)) {
                    if (!next.canRepeatIdsOf(old)) {
                        continue;
                    }
                    long oldFirst = old.unitOf(start);
                    long oldLast = oldFirst + UNITS - 1;
                    long mark = old.startOf(oldLast + 1); // the exact mark close() writes
                    long covering = next.markCovering(old, mark);
                    // The generator issues only in units after the one the mark's last millisecond falls in.
                    long nextFirst = next.lastUnitBefore(covering) + 1;
                    assertThat(intersect(ids(old, oldFirst, oldLast), ids(next, nextFirst, nextFirst + 2 * UNITS)))
                            .as("%s then %s", old, next).isFalse();
                    // And the bound is tight: one unit earlier repeats the old layout's last unit.
                    assertThat(intersect(ids(old, oldFirst, oldLast), ids(next, nextFirst - 1, nextFirst - 1)))
                            .as("%s then %s one unit early", old, next).isTrue();
                    // An epoch no later than the old one never needs to wait: the mark covers no later instant.
                    if (shift <= 0) {
                        assertThat(covering).isLessThanOrEqualTo(mark);
                    } else {
                        assertThat(covering).isGreaterThan(mark);
                    }
                }
            }
        }
    }
}
