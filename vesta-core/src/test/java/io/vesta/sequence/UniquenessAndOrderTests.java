package io.vesta.sequence;

import io.vesta.EmbeddedIdService;
import io.vesta.GenMethod;
import io.vesta.Id;
import io.vesta.IdType;
import io.vesta.machine.MachineIdBlock;
import io.vesta.machine.MachineIdRange;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Real clock, full speed: the layout's ceiling is reached, so units are used up and waited out constantly. A node
 * holding one machine ID or a block of them, single IDs and batches contending for the same counter; every
 * sequencer, both types, 1, 2 and 4 threads.
 */
class UniquenessAndOrderTests {

    private static final int IDS = 600_000;

    static Stream<Arguments> blocks() {
        return IntStream.of(1, 2, 8, 64).boxed().flatMap(blockSize -> Arrays.stream(SequencerStrategy.values())
                .flatMap(strategy -> Arrays.stream(IdType.values())
                        .flatMap(type -> IntStream.of(1, 2, 4).mapToObj(threads -> Arguments.of(blockSize, strategy, type,
                                threads)))));
    }

    @ParameterizedTest(name = "block of {0}, {1} {2}, {3} threads")
    @MethodSource("blocks")
    void idsAreUniqueIncreasingPerThreadAndCarryAMachineIdOfTheBlock(int blockSize, SequencerStrategy strategy, IdType type,
            int threads) throws Exception {
        // The second aligned block of the server range where there is one, so the offset is added to a first ID that
        // is not a multiple of the block size (924 = 4 * 231).
        MachineIdRange range = MachineIdRange.SERVER;
        long first = range.blocks(blockSize) > 1 ? range.blockStart(1, blockSize) : range.min();
        EmbeddedIdService service = EmbeddedIdService.builder().type(type).machineId(first).machineIdBlockSize(blockSize)
                .genMethod(GenMethod.CENTRAL_SERVER).sequencer(strategy).build();
        assertThat(service.machineIdBlock()).isEqualTo(new MachineIdBlock(first, blockSize));
        long[][] perThread = generate(service, threads, IDS / threads);

        for (long[] ids : perThread) {
            for (int i = 1; i < ids.length; i++) {
                assertThat(ids[i]).as("ID %d of a thread", i).isGreaterThan(ids[i - 1]);
            }
        }
        long[] all = Arrays.stream(perThread).flatMapToLong(Arrays::stream).sorted().toArray();
        assertThat(all).hasSize(threads * (IDS / threads));
        for (int i = 1; i < all.length; i++) {
            assertThat(all[i]).as("sorted ID %d", i).isNotEqualTo(all[i - 1]);
        }
        BitSet machines = new BitSet();
        for (long id : all) {
            Id fields = service.expId(id);
            machines.set((int) fields.machine());
            assertThat(fields.type()).isEqualTo(type.code());
            assertThat(fields.genMethod()).isEqualTo(GenMethod.CENTRAL_SERVER.code());
        }
        assertThat(machines.stream().toArray()).as("machine IDs of the issued IDs")
                .containsExactly(IntStream.range((int) first, (int) first + blockSize).toArray());
        assertThat(service.idsIssued()).isEqualTo(all.length);
        service.close();
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

    private static long[][] generate(EmbeddedIdService service, int threads, int perThread) throws Exception {
        long[][] ids = new long[threads][];
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<long[]>> futures = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int thread = t;
                futures.add(pool.submit(() -> {
                    long[] own = new long[perThread];
                    start.await();
                    // Batches of an odd size on the last thread (the only one with one thread), so they straddle
                    // units and the block's offsets.
                    int i = 0;
                    while (i < own.length) {
                        if (thread == threads - 1 && i % 2000 == 0 && own.length - i >= 1299) {
                            long[] batch = service.genIds(1299);
                            System.arraycopy(batch, 0, own, i, batch.length);
                            i += batch.length;
                        } else {
                            own[i++] = service.genId();
                        }
                    }
                    return own;
                }));
            }
            start.countDown();
            for (int t = 0; t < threads; t++) {
                ids[t] = futures.get(t).get(2, TimeUnit.MINUTES);
            }
        } finally {
            pool.shutdownNow();
        }
        return ids;
    }
}
