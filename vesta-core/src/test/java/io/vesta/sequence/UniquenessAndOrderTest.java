package io.vesta.sequence;

import io.vesta.EmbeddedIdService;
import io.vesta.GenMethod;
import io.vesta.Id;
import io.vesta.IdType;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/** Real clock, full speed: the layout's ceiling is reached, so units are used up and waited out constantly. */
class UniquenessAndOrderTest {

    private static final int THREADS = 4;
    private static final int IDS_PER_THREAD = 500_000;

    static Stream<Arguments> sequencersAndTypes() {
        return Arrays.stream(SequencerStrategy.values())
                .flatMap(strategy -> Arrays.stream(IdType.values()).map(type -> Arguments.of(strategy, type)));
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("sequencersAndTypes")
    void fourThreadsTwoMillionIdsAreUniqueIncreasingPerThreadAndCarryTheNodesFields(SequencerStrategy strategy, IdType type)
            throws Exception {
        EmbeddedIdService service = EmbeddedIdService.builder()
                .type(type).machineId(1000).genMethod(GenMethod.CENTRAL_SERVER).sequencer(strategy).build();
        long[][] perThread = new long[THREADS][];
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<long[]>> futures = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                int thread = t;
                futures.add(pool.submit(() -> {
                    long[] ids = new long[IDS_PER_THREAD];
                    start.await();
                    // Mix single IDs and batches so both paths contend for the same state.
                    int i = 0;
                    while (i < ids.length) {
                        if (thread % 2 == 1 && i % 1000 == 0 && ids.length - i >= 700) {
                            long[] batch = service.genIds(700);
                            System.arraycopy(batch, 0, ids, i, batch.length);
                            i += batch.length;
                        } else {
                            ids[i++] = service.genId();
                        }
                    }
                    return ids;
                }));
            }
            start.countDown();
            for (int t = 0; t < THREADS; t++) {
                perThread[t] = futures.get(t).get(2, TimeUnit.MINUTES);
            }
        } finally {
            pool.shutdownNow();
        }

        for (long[] ids : perThread) {
            for (int i = 1; i < ids.length; i++) {
                assertThat(ids[i]).as("ID %d of a thread", i).isGreaterThan(ids[i - 1]);
            }
        }
        long[] all = Arrays.stream(perThread).flatMapToLong(Arrays::stream).sorted().toArray();
        assertThat(all).hasSize(THREADS * IDS_PER_THREAD);
        assertThat(countDuplicates(all)).isZero();
        for (long id : new long[] {all[0], all[all.length / 2], all[all.length - 1]}) {
            Id fields = service.expId(id);
            assertThat(fields.machine()).isEqualTo(1000);
            assertThat(fields.type()).isEqualTo(type.code());
            assertThat(fields.genMethod()).isEqualTo(GenMethod.CENTRAL_SERVER.code());
            assertThat(fields.version()).isZero();
        }
        assertThat(service.idsIssued()).isEqualTo(THREADS * IDS_PER_THREAD);
    }

    /**
     * The original Vesta's lock and synchronized populators repeat hundreds of IDs here: one thread, 300k
     * MIN_GRANULARITY IDs at full speed, so nearly every millisecond's 1024 numbers are used up.
     */
    @ParameterizedTest
    @MethodSource("strategies")
    void usedUpMillisecondsNeverRepeatAnId(SequencerStrategy strategy) {
        EmbeddedIdService service = EmbeddedIdService.builder()
                .type(IdType.MIN_GRANULARITY).machineId(3).sequencer(strategy).build();
        long[] ids = new long[300_000];
        for (int i = 0; i < ids.length; i++) {
            ids[i] = service.genId();
        }

        for (int i = 1; i < ids.length; i++) {
            assertThat(ids[i]).isGreaterThan(ids[i - 1]);
        }
        assertThat(service.exhaustedWaits()).isPositive();
    }

    static Stream<SequencerStrategy> strategies() {
        return Arrays.stream(SequencerStrategy.values());
    }

    private static int countDuplicates(long[] sorted) {
        int duplicates = 0;
        for (int i = 1; i < sorted.length; i++) {
            if (sorted[i] == sorted[i - 1]) {
                duplicates++;
            }
        }
        return duplicates;
    }
}
