package io.vesta.client;

import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class BatchSizerTest {

    private static final long MS = 1_000_000;

    /** An age bound far above the batch lifetime: the sizing of busy clients alone. */
    private final BatchSizer sizer = new BatchSizer(1000, 1000, 100_000, Duration.ofSeconds(1), Duration.ofHours(1));

    /** A bound of a second, as MAX_PEAK's default: sizes from 1, first batch 1,000. */
    private final BatchSizer bounded = new BatchSizer(1, 1000, 100_000, Duration.ofSeconds(1), Duration.ofSeconds(1));

    @Test
    void startsAtTheFirstSizeAndDoublesWhileBatchesLastLessThanTheTargetUpToTheMaximum() {
        assertThat(sizer.size()).isEqualTo(1000);
        int[] expected = {2000, 4000, 8000, 16_000, 32_000, 64_000, 100_000, 100_000};
        for (int size : expected) {
            sizer.ended(size, 100 * MS, 200 * MS, false, false);
            assertThat(sizer.size()).isEqualTo(size);
        }
        assertThat(sizer.fetchAhead()).isTrue();
    }

    @Test
    void aStarvedCallerGrowsTheBatchEvenWhenTheBatchLastedLong() {
        sizer.ended(1000, 5000 * MS, 5000 * MS, false, true);

        assertThat(sizer.size()).isEqualTo(2000);
    }

    @Test
    void batchesBetweenOnceAndTwiceTheTargetKeepTheSizeAndLongerOnesHalveItDownToTheMinimum() {
        for (int i = 0; i < 4; i++) {
            sizer.ended(1000, 10 * MS, 20 * MS, false, false);
        }
        assertThat(sizer.size()).isEqualTo(16_000);

        sizer.ended(16_000, 1000 * MS, 1000 * MS, false, false);
        sizer.ended(16_000, 2000 * MS, 2000 * MS, false, false);
        assertThat(sizer.size()).isEqualTo(16_000);

        int[] expected = {8000, 4000, 2000, 1000, 1000};
        for (int size : expected) {
            sizer.ended(16_000, 2001 * MS, 2001 * MS, false, false);
            assertThat(sizer.size()).isEqualTo(size);
        }
    }

    @Test
    void theTargetLifetimeIsAtMostAnEighthOfTheAgeBound() {
        assertThat(bounded.target()).isEqualTo(Duration.ofMillis(125));
        assertThat(new BatchSizer(1, 1000, 100_000, Duration.ofMillis(100), Duration.ofSeconds(1)).target())
                .isEqualTo(Duration.ofMillis(100));
    }

    @Test
    void aBusyClientWithinTheBoundKeepsGrowingToTheMaximum() {
        for (int i = 0; i < 10; i++) {
            // 1,000,000 IDs a second: each batch lasts size / 1000 ms, under the 125 ms target, and its last ID is
            // handed out twice that after its request.
            long lifetime = bounded.size() * 1000L;
            bounded.ended(bounded.size(), lifetime, 2 * lifetime, false, false);
        }

        assertThat(bounded.size()).isEqualTo(100_000);
        assertThat(bounded.fetchAhead()).isTrue();
    }

    @Test
    void batchesWhoseLastIdsCameCloseToTheBoundStopGrowingAndThenShrink() {
        BatchSizer minGranularity = new BatchSizer(1, 32_000, 100_000, Duration.ofSeconds(1), Duration.ofMillis(100));

        // A starved caller would double the size, but the batch's last IDs were 40 ms old: over a third of the bound.
        minGranularity.ended(32_000, MS, 40 * MS, false, true);
        assertThat(minGranularity.size()).isEqualTo(32_000);

        // 60 ms: over half.
        minGranularity.ended(32_000, MS, 60 * MS, false, true);
        assertThat(minGranularity.size()).isEqualTo(16_000);

        minGranularity.ended(16_000, MS, 20 * MS, false, true);
        assertThat(minGranularity.size()).isEqualTo(32_000);
    }

    @Test
    void aBatchThatExpiredShrinksToWhatWasUsedOfIt() {
        BatchSizer large = new BatchSizer(1, 100_000, 100_000, Duration.ofSeconds(1), Duration.ofSeconds(1));

        // 30,000 IDs in 400 ms: calls 13 µs apart, busy, but the batch grew old before its end.
        large.ended(30_000, 400 * MS, 1000 * MS, true, false);

        assertThat(large.size()).isEqualTo(30_000);
        assertThat(large.fetchAhead()).isTrue();
        large.ended(30_000, 800 * MS, 1000 * MS, true, false);
        assertThat(large.size()).as("at most half the last size").isEqualTo(15_000);
    }

    @Test
    void afterAnExpiryTheSizeDoesNotGrowForAFewBatches() {
        BatchSizer large = new BatchSizer(1, 64_000, 100_000, Duration.ofSeconds(1), Duration.ofMillis(100));
        large.ended(20_000, 30 * MS, 100 * MS, true, false);
        assertThat(large.size()).isEqualTo(20_000);

        for (int i = 0; i < BatchSizer.COOLDOWN_BATCHES; i++) {
            large.ended(20_000, MS, 10 * MS, false, true);
            assertThat(large.size()).isEqualTo(20_000);
        }
        large.ended(20_000, MS, 10 * MS, false, true);
        assertThat(large.size()).isEqualTo(40_000);
    }

    @Test
    void aBatchThatGrewOldBeforeItsUseBeganHalvesTheSizeAndKeepsFetchingAhead() {
        BatchSizer large = new BatchSizer(1, 100_000, 100_000, Duration.ofSeconds(1), Duration.ofMillis(100));

        large.expiredUnused();
        large.expiredUnused();

        assertThat(large.size()).isEqualTo(25_000);
        assertThat(large.fetchAhead()).isTrue();
    }

    @Test
    void callsFurtherApartThanTheBoundGetBatchesOfOneNotFetchedAhead() {
        bounded.ended(1, 3000 * MS, 3000 * MS, true, false);

        assertThat(bounded.size()).isEqualTo(1);
        assertThat(bounded.fetchAhead()).isFalse();
        bounded.ended(1, 3000 * MS, 3000 * MS, false, true);
        assertThat(bounded.size()).as("a caller waiting by design is not starved").isEqualTo(1);
        assertThat(bounded.fetchAhead()).isFalse();
    }

    @Test
    void callsAnEighthOfTheBoundApartOrMoreGetWhatFitsInTheBoundNotFetchedAhead() {
        // Three calls 600 ms apart: one more ID fits in 800 ms, the share of the bound a quiet batch is sized to.
        bounded.ended(3, 1800 * MS, 1800 * MS, true, false);
        assertThat(bounded.size()).isEqualTo(2);
        assertThat(bounded.fetchAhead()).isFalse();

        // Calls 250 ms apart: four.
        bounded.ended(2, 500 * MS, 500 * MS, false, false);
        assertThat(bounded.size()).isEqualTo(4);
        assertThat(bounded.fetchAhead()).isFalse();

        // Calls 125 ms apart: seven.
        bounded.ended(4, 500 * MS, 500 * MS, false, false);
        assertThat(bounded.size()).isEqualTo(7);

        // Calls 100 ms apart: fetched ahead again.
        bounded.ended(7, 700 * MS, 700 * MS, false, false);
        assertThat(bounded.fetchAhead()).isTrue();
    }

    @Test
    void aQuietClientThatGetsBusyFetchesAheadAgainAndGrows() {
        bounded.ended(1, 3000 * MS, 3000 * MS, true, false);

        bounded.ended(1, MS, 2 * MS, false, true);
        assertThat(bounded.fetchAhead()).isTrue();
        assertThat(bounded.size()).isEqualTo(2);
        for (int i = 0; i < 20; i++) {
            bounded.ended(bounded.size(), MS, 2 * MS, false, false);
        }
        assertThat(bounded.size()).isEqualTo(100_000);
    }

    @Test
    void aMinimumAboveTheMaximumIsABug() {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> new BatchSizer(10, 10, 5, Duration.ofSeconds(1), Duration.ofSeconds(1)));
    }
}
