package io.vesta.sequence;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** Leaf's step rule, at and around its two thresholds. */
class AdaptiveStepTests {

    @Test
    void usedUpSoonerThanTheTargetDoublesUpToTheMaximum() {
        assertThat(AdaptiveStep.next(1_000, 899, 900, 1, 100_000)).isEqualTo(2_000);
        assertThat(AdaptiveStep.next(1_000, 0, 900, 1, 100_000)).isEqualTo(2_000);
        assertThat(AdaptiveStep.next(60_000, 10, 900, 1, 100_000)).isEqualTo(100_000);
        assertThat(AdaptiveStep.next(200_000, 10, 900, 1, 100_000)).as("above the maximum: down to it")
                .isEqualTo(100_000);
    }

    @Test
    void betweenOnceAndTwiceTheTargetKeepsTheSize() {
        assertThat(AdaptiveStep.next(1_000, 900, 900, 1, 100_000)).isEqualTo(1_000);
        assertThat(AdaptiveStep.next(1_000, 1_799, 900, 1, 100_000)).isEqualTo(1_000);
    }

    @Test
    void twiceTheTargetOrLongerHalvesDownToTheMinimum() {
        assertThat(AdaptiveStep.next(1_000, 1_800, 900, 1, 100_000)).isEqualTo(500);
        assertThat(AdaptiveStep.next(1_000, Long.MAX_VALUE, 900, 1, 100_000)).isEqualTo(500);
        assertThat(AdaptiveStep.next(1_000, 1_800, 900, 800, 100_000)).isEqualTo(800);
    }

    @Test
    void theMinimumWinsOverTheMaximum() {
        // A segment table's step is the operator's word, even above the service's maximum step.
        assertThat(AdaptiveStep.next(5_000, 10, 900, 5_000, 1_000)).isEqualTo(5_000);
        assertThat(AdaptiveStep.next(5_000, 1_800, 900, 5_000, 1_000)).isEqualTo(5_000);
    }
}
