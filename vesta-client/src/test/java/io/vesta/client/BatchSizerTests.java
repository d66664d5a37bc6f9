package io.vesta.client;

import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class BatchSizerTests {

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
        sizer.ended(16_000, 1999 * MS, 1999 * MS, false, false);
        assertThat(sizer.size()).isEqualTo(16_000);

        int[] expected = {8000, 4000, 2000, 1000, 1000};
        for (int size : expected) {
            sizer.ended(16_000, 2000 * MS, 2000 * MS, false, false);
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
    void theServersPaceCapsTheSizeAtWhatItIssuesInAThirdOfTheBound() {
        BatchSizer minGranularity = new BatchSizer(1, 64_000, 100_000, Duration.ofSeconds(1), Duration.ofMillis(100));

        // 32,000 IDs whose times span at least 31 ms: about 1,032 a millisecond, 34,408 in a third of 100 ms.
        minGranularity.issued(32_000, 31 * MS);

        assertThat(minGranularity.paceCap()).isEqualTo(34_408);
        assertThat(minGranularity.size()).as("the next request drops to the cap at once").isEqualTo(34_408);
        for (int i = 0; i < 5; i++) {
            // A starved caller, batches used up young: the size would double, but not past the cap.
            minGranularity.ended(minGranularity.size(), MS, 20 * MS, false, true);
            assertThat(minGranularity.size()).isEqualTo(34_408);
        }
    }

    /**
     * The pipeline ServerLoadHarness measured for a busy client of a MIN_GRANULARITY server with one machine ID, on
     * the sizer's own clock: the server issues 1,024 IDs a millisecond, an answer travels 5 ms, the caller takes ten
     * IDs a microsecond and is always waiting, so the buffer asks for batch k + 1 as soon as the server has reserved
     * batch k, before it has arrived or been used: with what the sizer learnt from batch k - 1. Without the server's
     * pace, each starved batch doubled the size up to 100,000, which takes the server 98 ms alone and arrived expired
     * under the 100 ms bound, every cycle (a third of the IDs dropped in the harness).
     */
    @Test
    void aBusyMinGranularityClientsBatchesStayWithinTheBoundAndKeepTheServerBusy() {
        long bound = 100 * MS;
        BatchSizer minGranularity = new BatchSizer(1, 1000, 100_000, Duration.ofSeconds(1), Duration.ofNanos(bound));
        long nanosPerId = MS / 1024;
        long sent = 0;
        long previousEnd = 0;
        int size = minGranularity.size();
        long handedOut = 0;
        int expired = 0;
        int largest = 0;
        for (int batch = 0; batch < 300; batch++) {
            largest = Math.max(largest, size);
            long reserved = sent + size * nanosPerId;
            int next = minGranularity.size();
            long delivered = reserved + 5 * MS;
            long span = Math.max(0, size * nanosPerId - MS);
            minGranularity.issued(size, span);
            long inUse = Math.max(delivered, previousEnd);
            if (inUse - sent >= bound) {
                expired++;
                minGranularity.expiredUnused();
            } else {
                long end = inUse + size * 100L;
                assertThat(end - sent).as("age of batch %d's last ID", batch).isLessThan(bound);
                minGranularity.ended(size, end - inUse, end - Math.max(sent, reserved - span), false, true);
                handedOut += size;
                previousEnd = end;
            }
            sent = reserved;
            size = next;
        }

        assertThat(expired).as("batches that arrived older than the bound").isZero();
        assertThat(largest).as("the largest batch: what the server issues in a third of 100 ms").isLessThan(40_000);
        assertThat(handedOut / (double) (sent / MS)).as("IDs handed out a millisecond").isGreaterThan(0.95 * 1024);
    }

    @Test
    void aBatchIssuedWithinATimeUnitLeavesTheCapAndAFasterPaceRaisesIt() {
        BatchSizer minGranularity = new BatchSizer(1, 1000, 100_000, Duration.ofSeconds(1), Duration.ofMillis(100));
        minGranularity.issued(1000, 0);
        assertThat(minGranularity.paceCap()).as("no pace known").isEqualTo(100_000);

        minGranularity.issued(16_000, 15 * MS);
        assertThat(minGranularity.paceCap()).isEqualTo(35_555);
        minGranularity.issued(16_000, 0);
        assertThat(minGranularity.paceCap()).isEqualTo(35_555);

        // The server got faster (a block of 8, or the clients sharing it left): the cap follows.
        minGranularity.issued(32_000, 4 * MS);
        assertThat(minGranularity.paceCap()).isEqualTo(100_000);
        minGranularity.ended(1000, MS, 20 * MS, false, true);
        assertThat(minGranularity.size()).isEqualTo(2000);
    }

    @Test
    void aMinimumAboveTheMaximumIsABug() {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> new BatchSizer(10, 10, 5, Duration.ofSeconds(1), Duration.ofSeconds(1)));
    }
}
