package io.vesta.time;

import io.vesta.GenMethod;
import io.vesta.IdType;
import io.vesta.layout.IdCodec;
import io.vesta.layout.IssuingLayout;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;

import static org.assertj.core.api.Assertions.assertThat;

class MaxOfTimestampStoreTests {

    private final RecordingStore store = new RecordingStore();
    private final MaxOfTimestampStore shared = new MaxOfTimestampStore(store, 2);
    private final TimestampStore rest = shared.view(0);
    private final TimestampStore client = shared.view(1);

    @Test
    void theStoreHoldsTheHighestOfTheViewsLatestMarks() {
        rest.save(1_000);
        client.save(500);
        assertThat(store.saved).containsExactly(1_000L);

        client.save(3_000);
        assertThat(store.saved).containsExactly(1_000L, 3_000L);
    }

    @Test
    void anExactMarkOnCloseNeverLowersTheStoreBelowTheOtherViewsMark() {
        rest.save(13_000);
        client.save(18_000);

        client.save(9_000);
        assertThat(store.load()).hasValue(13_000);

        rest.save(4_000);
        assertThat(store.load()).hasValue(9_000);
        assertThat(store.saved).containsExactly(13_000L, 18_000L, 13_000L, 9_000L);
    }

    @Test
    void everyViewReadsTheStoredMark() {
        store.save(42);
        assertThat(rest.load()).hasValue(42);
        assertThat(client.load()).hasValue(42);
    }

    @Test
    void viewsOfLayoutsThatNeverShareAnIdEachKeepTheirOwnMarkInAFileAndViewsOfOneLayoutTheHighest(@TempDir Path dir) {
        IssuingLayout restLayout = new IssuingLayout(0, IdType.MAX_PEAK, GenMethod.REST, IdCodec.DEFAULT_EPOCH);
        IssuingLayout clientLayout = new IssuingLayout(0, IdType.MAX_PEAK, GenMethod.CENTRAL_SERVER, IdCodec.DEFAULT_EPOCH);
        FileTimestampStore file = new FileTimestampStore(dir.resolve("mark"));
        MaxOfTimestampStore two = new MaxOfTimestampStore(file, 3);

        two.view(0).save(restLayout, 13_000);
        two.view(1).save(clientLayout, 8_000);
        two.view(2).save(restLayout, 9_000);

        assertThat(file.loadAll()).containsExactlyInAnyOrder(new RestartMark(restLayout, 13_000),
                new RestartMark(clientLayout, 8_000));
        two.view(0).save(restLayout, 5_000); // an exact mark on close: the other view of the layout still holds 9_000
        assertThat(file.loadAll()).contains(new RestartMark(restLayout, 9_000));
    }

    static final class RecordingStore implements TimestampStore {

        final List<Long> saved = new ArrayList<>();
        private Long mark;

        @Override
        public OptionalLong load() {
            return mark == null ? OptionalLong.empty() : OptionalLong.of(mark);
        }

        @Override
        public void save(long epochMillis) {
            saved.add(epochMillis);
            mark = epochMillis;
        }
    }
}
