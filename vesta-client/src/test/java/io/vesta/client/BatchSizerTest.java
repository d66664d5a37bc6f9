package io.vesta.client;

import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class BatchSizerTest {

    private static final long MS = 1_000_000;

    private final BatchSizer sizer = new BatchSizer(1000, 100_000, Duration.ofSeconds(1));

    @Test
    void startsAtTheMinimumAndDoublesWhileBatchesLastLessThanTheTargetUpToTheMaximum() {
        assertThat(sizer.size()).isEqualTo(1000);
        int[] expected = {2000, 4000, 8000, 16_000, 32_000, 64_000, 100_000, 100_000};
        for (int size : expected) {
            sizer.usedUp(100 * MS, false);
            assertThat(sizer.size()).isEqualTo(size);
        }
    }

    @Test
    void aStarvedCallerGrowsTheBatchEvenWhenTheBatchLastedLong() {
        sizer.usedUp(5000 * MS, true);

        assertThat(sizer.size()).isEqualTo(2000);
    }

    @Test
    void batchesBetweenOnceAndTwiceTheTargetKeepTheSizeAndLongerOnesHalveItDownToTheMinimum() {
        for (int i = 0; i < 4; i++) {
            sizer.usedUp(10 * MS, false);
        }
        assertThat(sizer.size()).isEqualTo(16_000);

        sizer.usedUp(1000 * MS, false);
        sizer.usedUp(2000 * MS, false);
        assertThat(sizer.size()).isEqualTo(16_000);

        int[] expected = {8000, 4000, 2000, 1000, 1000};
        for (int size : expected) {
            sizer.usedUp(2001 * MS, false);
            assertThat(sizer.size()).isEqualTo(size);
        }
    }

    @Test
    void aMinimumAboveTheMaximumIsABug() {
        assertThatIllegalArgumentException().isThrownBy(() -> new BatchSizer(10, 5, Duration.ofSeconds(1)));
    }
}
