package io.vesta.client;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The buffer over a rotation of servers that exist only as a fetch function: no HTTP. */
class PrefetchBufferTests {

    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

    private final List<IdServer> servers = List.of(new IdServer(URI.create("http://10.0.0.1:8080"), 20 * MS, 40 * MS));
    /** The ticker that times how long a batch lasts and the servers' backoff: moved by the tests. */
    private final AtomicLong ticker = new AtomicLong();
    /** The rotation of the buffers on the system clock. */
    private final ServerRotation rotation = rotation(servers, System::nanoTime);
    /** The rotation of the buffers on {@link #ticker}: one clock for the buffer and its servers' backoff. */
    private final ServerRotation tickedRotation = rotation(servers, ticker::get);
    private final AtomicLong nextId = new AtomicLong(1);
    private final AtomicInteger fetches = new AtomicInteger();
    private volatile boolean down;
    private final List<PrefetchBuffer> buffers = new ArrayList<>();
    private final List<Integer> sizes = new java.util.concurrent.CopyOnWriteArrayList<>();

    private static ServerRotation rotation(List<IdServer> servers, LongSupplier ticker) {
        return new ServerRotation(servers, Throwable::getMessage, ticker);
    }

    @AfterEach
    void close() {
        buffers.forEach(PrefetchBuffer::close);
    }

    /** A batch of consecutive IDs, or a failure while the server is down. */
    private long[] fetch(IdServer server, int count, Runnable onReserved) throws IOException {
        fetches.incrementAndGet();
        sizes.add(count);
        if (down) {
            throw new IOException("down");
        }
        long first = nextId.getAndAdd(count);
        onReserved.run();
        return LongStream.range(first, first + count).toArray();
    }

    private PrefetchBuffer buffer(int prefetch, double refillThreshold, LongSupplier fallback) {
        PrefetchBuffer buffer = new PrefetchBuffer(fixed(prefetch), refillThreshold, rotation, this::fetch,
                Duration.ofMillis(500), fallback, System::nanoTime);
        buffers.add(buffer);
        return buffer;
    }

    /** Counts {@code latch} down once a caller is waiting for one of {@code buffer}'s rounds. */
    private static void releaseOnceTheCallerWaits(PrefetchBuffer buffer, CountDownLatch latch) {
        Thread release = new Thread(() -> {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (buffer.callersWaiting() == 0 && System.nanoTime() < deadline) {
                try {
                    Thread.sleep(1);
                } catch (InterruptedException e) {
                    return;
                }
            }
            latch.countDown();
        });
        release.setDaemon(true);
        release.start();
    }

    /** Batches of one size: the minimum is the maximum. */
    private static BatchSizer fixed(int size) {
        return new BatchSizer(size, size, size, Duration.ofSeconds(1), Duration.ofHours(1));
    }

    @Test
    void idsComeOutInTheOrderTheBatchesCameIn() {
        PrefetchBuffer buffer = buffer(10, 0.1, null);

        for (long expected = 1; expected <= 95; expected++) {
            assertThat(buffer.nextId()).isEqualTo(expected);
        }
        assertThat(buffer.batchesFetched()).isBetween(10L, 11L);
    }

    @Test
    void batchesUsedUpQuicklyGrowToTheMaximumAndBatchesThatLastShrinkBackToTheMinimum() throws Exception {
        PrefetchBuffer buffer = new PrefetchBuffer(new BatchSizer(10, 10, 160, Duration.ofMillis(100), Duration.ofHours(1)), 0.1, tickedRotation,
                this::fetch, Duration.ofMillis(500), null, ticker::get);
        buffers.add(buffer);
        long expected = 1;
        // The ticker stands still: every batch is used up at once, and each round asks for twice the last, up to 160.
        for (int batch = 0; batch < 7; batch++) {
            Await.until(() -> buffer.bufferedIds() > 0);
            int size = (int) buffer.bufferedIds();
            for (int i = 0; i < size; i++) {
                // Consecutive across batches: the fetches hand out consecutive IDs and no batch is skipped.
                assertThat(buffer.nextId()).isGreaterThanOrEqualTo(expected);
                expected++;
            }
        }
        assertThat(List.copyOf(sizes).subList(0, 6)).as("requests while batches are used up at once")
                .startsWith(10, 10).contains(20, 40, 80, 160);
        assertThat(buffer.batchSize()).isEqualTo(160);

        // Now every ID takes 100 ms by the ticker, so even a batch of 10 lasts a second, over twice the 100 ms target:
        // the requests halve back to 10. (A millisecond of real time per ID lets each next batch arrive in time.)
        for (int i = 0; i < 2000 && buffer.batchSize() > 10; i++) {
            buffer.nextId();
            ticker.addAndGet(TimeUnit.MILLISECONDS.toNanos(100));
            Thread.sleep(1);
        }
        assertThat(buffer.batchSize()).isEqualTo(10);
        List<Integer> later = List.copyOf(sizes);
        assertThat(later.subList(6, later.size())).contains(80, 40, 20);
    }

    /**
     * A caller waits while the first batch travels slowly: once its server has reserved it, the second round starts,
     * and though it ends first, its batch is used only after the first one.
     */
    @Test
    void whileACallerWaitsTheNextRoundStartsOnceTheServerHasReservedAndBatchesKeepTheirOrder() throws Exception {
        CountDownLatch callerWaiting = new CountDownLatch(1);
        CountDownLatch secondEnded = new CountDownLatch(1);
        AtomicInteger calls = new AtomicInteger();
        PrefetchBuffer buffer = new PrefetchBuffer(fixed(10), 0.1, rotation, (server, count, onReserved) -> {
            int call = calls.incrementAndGet();
            if (call == 1) {
                callerWaiting.await(5, TimeUnit.SECONDS);
            }
            long first = nextId.getAndAdd(count);
            onReserved.run();
            if (call == 1) {
                // The first batch "travels" until the second round has ended.
                secondEnded.await(5, TimeUnit.SECONDS);
                Thread.sleep(50);
            } else if (call == 2) {
                secondEnded.countDown();
            }
            return LongStream.range(first, first + count).toArray();
        }, Duration.ofSeconds(5), null, System::nanoTime);
        buffers.add(buffer);
        releaseOnceTheCallerWaits(buffer, callerWaiting);

        long[] ids = new long[20];
        for (int i = 0; i < ids.length; i++) {
            ids[i] = buffer.nextId();
        }

        assertThat(secondEnded.getCount()).as("the second round ran while the first batch travelled").isZero();
        assertThat(ids).containsExactly(LongStream.rangeClosed(1, 20).toArray());
    }

    /**
     * The round started while the first was under way fails too (in real life: its server is backing off after the
     * first round's failure): the caller learns the first round's error, which is the cause.
     */
    @Test
    void whenAnOverlappingRoundFailsAfterTheRoundBeforeItTheCallerLearnsTheFirstError() throws Exception {
        List<IdServer> two = List.of(new IdServer(URI.create("http://10.0.0.1:8080"), 5000 * MS, 5000 * MS),
                new IdServer(URI.create("http://10.0.0.2:8080"), 5000 * MS, 5000 * MS));
        CountDownLatch callerWaiting = new CountDownLatch(1);
        CountDownLatch secondFailed = new CountDownLatch(1);
        AtomicInteger calls = new AtomicInteger();
        PrefetchBuffer buffer = new PrefetchBuffer(fixed(10), 0.1, rotation(two, System::nanoTime),
                (server, count, onReserved) -> {
                    int call = calls.incrementAndGet();
                    if (call == 1) {
                        callerWaiting.await(5, TimeUnit.SECONDS);
                        onReserved.run();
                        secondFailed.await(5, TimeUnit.SECONDS);
                        throw new IOException("the first batch was invalid");
                    }
                    secondFailed.countDown();
                    throw new IOException("another failure");
                }, Duration.ofSeconds(5), null, System::nanoTime);
        buffers.add(buffer);
        releaseOnceTheCallerWaits(buffer, callerWaiting);

        assertThatThrownBy(buffer::nextId).isInstanceOf(ServersUnavailableException.class)
                .hasMessageContaining("the first batch was invalid");
        assertThat(secondFailed.getCount()).as("the overlapping round ran").isZero();
    }

    @Test
    void theNextBatchIsFetchedOnceTheThresholdIsUsed() throws Exception {
        PrefetchBuffer buffer = buffer(10, 0.5, null);
        Await.until(() -> buffer.batchesFetched() == 1);
        for (int i = 0; i < 5; i++) {
            buffer.nextId();
        }
        Thread.sleep(50);
        assertThat(fetches).as("half of the batch is still unused").hasValue(1);

        buffer.nextId();

        Await.until(() -> buffer.batchesFetched() == 2);
    }

    @Test
    void aSliceComesFromTheCurrentBatchOrNotAtAll() throws Exception {
        PrefetchBuffer buffer = buffer(10, 1, null);
        assertThat(buffer.nextId()).isEqualTo(1);

        assertThat(buffer.take(4)).containsExactly(2, 3, 4, 5);
        assertThat(buffer.take(6)).as("only 5 left").isNull();
        assertThat(buffer.take(5)).containsExactly(6, 7, 8, 9, 10);
    }

    @Test
    void withoutAFallbackACallFailsWithTheServersErrors() {
        down = true;
        List<IdServer> slow = List.of(new IdServer(URI.create("http://10.0.0.1:8080"), 5000 * MS, 5000 * MS));
        PrefetchBuffer buffer = new PrefetchBuffer(fixed(10), 0.1, rotation(slow, System::nanoTime),
                this::fetch, Duration.ofMillis(500), null, System::nanoTime);
        buffers.add(buffer);

        // Whether the first round ends before or while the caller waits, the caller learns the server's error.
        assertThatThrownBy(buffer::nextId).isInstanceOf(ServersUnavailableException.class)
                .hasMessageContaining("http://10.0.0.1:8080 ").hasMessageContaining(": down");
        assertThatThrownBy(buffer::nextId).as("while the server backs off").isInstanceOf(ServersUnavailableException.class)
                .hasMessageContaining("http://10.0.0.1:8080 skipped, backing off");
        assertThat(fetches).as("no round while the only server backs off").hasValue(1);
    }

    @Test
    void withAFallbackACallTakesItsIdsUntilABatchArrives() throws Exception {
        down = true;
        PrefetchBuffer buffer = buffer(10, 0.1, () -> -7);

        assertThat(buffer.nextId()).isEqualTo(-7);
        down = false;

        Await.until(() -> buffer.batchesFetched() > 0);
        assertThat(buffer.nextId()).isEqualTo(1);
    }

    /**
     * A failed round's retry and the server's backoff go by the buffer's ticker, the one that ages its batches: once
     * the ticker passes the end of the backoff, a call starts a round, however little real time passed.
     */
    @Test
    void afterAFailedRoundTheServerIsAskedAgainOnceTheTickerPassesItsBackoff() {
        down = true;
        List<IdServer> slow = List.of(new IdServer(URI.create("http://10.0.0.1:8080"), 5000 * MS, 5000 * MS));
        PrefetchBuffer buffer = new PrefetchBuffer(fixed(10), 0.1, rotation(slow, ticker::get), this::fetch,
                Duration.ofMillis(500), null, ticker::get);
        buffers.add(buffer);
        assertThatThrownBy(buffer::nextId).isInstanceOf(ServersUnavailableException.class).hasMessageContaining(": down");
        down = false;
        assertThatThrownBy(buffer::nextId).as("while the ticker is within the backoff")
                .isInstanceOf(ServersUnavailableException.class).hasMessageContaining("skipped, backing off 5000 ms");
        assertThat(fetches).as("no round while the ticker is within the backoff").hasValue(1);

        ticker.addAndGet(5000 * MS);

        assertThat(buffer.nextId()).isEqualTo(1);
    }

    @Test
    void aClosedBufferIssuesNothingAndARoundUnderWayAsksNoFurtherServer() throws Exception {
        List<IdServer> two = List.of(new IdServer(URI.create("http://10.0.0.1:8080"), MS, MS),
                new IdServer(URI.create("http://10.0.0.2:8080"), MS, MS));
        CountDownLatch fetching = new CountDownLatch(1);
        CountDownLatch closed = new CountDownLatch(1);
        AtomicInteger asked = new AtomicInteger();
        PrefetchBuffer buffer = new PrefetchBuffer(fixed(10), 0.1, rotation(two, System::nanoTime), (server, count, onReserved) -> {
            asked.incrementAndGet();
            fetching.countDown();
            // A fetch that ignores interrupts, as a slow user's HTTP client might.
            while (closed.getCount() > 0) {
                Thread.onSpinWait();
            }
            throw new IOException("late");
        }, Duration.ofMillis(500), null, System::nanoTime);
        assertThat(fetching.await(5, TimeUnit.SECONDS)).isTrue();

        buffer.close();
        closed.countDown();

        assertThatThrownBy(buffer::nextId).isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
        Thread.sleep(50);
        assertThat(asked).hasValue(1);
    }

    /** When each fetched range of IDs was asked of the "server", by the test's ticker: first ID of the range to tick. */
    private final java.util.concurrent.ConcurrentSkipListMap<Long, Long> askedAt = new java.util.concurrent.ConcurrentSkipListMap<>();

    /** Like {@link #fetch}, recording when each batch was asked for, by the ticker the buffer ages batches with. */
    private long[] agingFetch(IdServer server, int count, Runnable onReserved) {
        fetches.incrementAndGet();
        sizes.add(count);
        long asked = ticker.get();
        long first = nextId.getAndAdd(count);
        askedAt.put(first, asked);
        onReserved.run();
        return LongStream.range(first, first + count).toArray();
    }

    /** A buffer aging its batches by the test's ticker, sizes from 1, first batch 10, largest 100. */
    private PrefetchBuffer aging(Duration maxAge) {
        PrefetchBuffer buffer = new PrefetchBuffer(new BatchSizer(1, 10, 100, Duration.ofSeconds(1), maxAge), 0.1, tickedRotation,
                this::agingFetch, Duration.ofSeconds(5), null, ticker::get);
        buffers.add(buffer);
        return buffer;
    }

    /** How long ago, by the ticker, the batch of {@code id} was asked for. */
    private long ageOf(long id) {
        return ticker.get() - askedAt.floorEntry(id).getValue();
    }

    @Test
    void aBatchOlderThanTheBoundIsDroppedAndCountedAndTheCallGetsAFreshId() throws Exception {
        PrefetchBuffer buffer = aging(Duration.ofSeconds(1));
        assertThat(buffer.nextId()).isEqualTo(1);
        assertThat(buffer.expiredIds()).isZero();
        // The caller waited for the first batch, so the next one was asked for at once: wait for it to arrive.
        Await.until(() -> buffer.batchesFetched() == fetches.get());
        long fetchedBefore = nextId.get() - 1;
        int fetchesBefore = fetches.get();

        ticker.addAndGet(TimeUnit.SECONDS.toNanos(2));
        long id = buffer.nextId();

        assertThat(id).as("from a batch asked for after the call").isEqualTo(fetchedBefore + 1);
        assertThat(ageOf(id)).isZero();
        assertThat(buffer.expiredIds()).as("every ID fetched before but the one handed out").isEqualTo(fetchedBefore - 1);
        assertThat(fetches).hasValue(fetchesBefore + 1);
    }

    @Test
    void aClientCallingLessOftenThanTheBoundFetchesOneIdPerCallAndNothingAhead() throws Exception {
        PrefetchBuffer buffer = aging(Duration.ofSeconds(1));
        // The first calls drop what was fetched while the buffer took the client for a busy one.
        for (int call = 0; call < 3; call++) {
            buffer.nextId();
            ticker.addAndGet(TimeUnit.SECONDS.toNanos(3));
        }
        buffer.nextId();
        Await.until(() -> buffer.batchesFetched() == fetches.get());
        long expiredBefore = buffer.expiredIds();
        int fetchesBefore = fetches.get();

        for (int call = 0; call < 5; call++) {
            ticker.addAndGet(TimeUnit.SECONDS.toNanos(3));
            long id = buffer.nextId();
            assertThat(ageOf(id)).isZero();
        }

        assertThat(fetches.get() - fetchesBefore).as("one fetch per call").isEqualTo(5);
        assertThat(buffer.expiredIds()).as("nothing fetched to be thrown away").isEqualTo(expiredBefore);
        assertThat(buffer.fetchesAhead()).isFalse();
        assertThat(List.copyOf(sizes).subList(sizes.size() - 5, sizes.size())).containsOnly(1);
    }

    @Test
    void aClientCallingAQuarterOfTheBoundApartFetchesForEveryFewCallsNotEveryCall() throws Exception {
        PrefetchBuffer buffer = aging(Duration.ofSeconds(1));
        // Long enough for every batch fetched before the buffer knew the client was quiet to have grown old.
        for (int call = 0; call < 10; call++) {
            ticker.addAndGet(TimeUnit.MILLISECONDS.toNanos(300));
            buffer.nextId();
        }
        // A batch fetched ahead before the buffer knew the client was quiet may still be on its way.
        Await.until(() -> buffer.batchesFetched() == fetches.get());
        int fetchesBefore = fetches.get();
        long expiredBefore = buffer.expiredIds();

        for (int call = 0; call < 30; call++) {
            ticker.addAndGet(TimeUnit.MILLISECONDS.toNanos(300));
            long id = buffer.nextId();
            assertThat(ageOf(id)).isLessThanOrEqualTo(TimeUnit.SECONDS.toNanos(1));
        }

        // Calls 300 ms apart: batches of 3 (what fits in 800 ms), each fetched when a call needs it.
        assertThat(fetches.get() - fetchesBefore).isBetween(9, 11);
        assertThat(buffer.expiredIds()).isEqualTo(expiredBefore);
    }

    /**
     * Quiet spells, bursts and steady calls by a seeded random walk of the ticker: no ID is handed out more than the
     * bound after its batch was asked for, whatever the background fetches were doing, and none twice.
     */
    @Test
    void quietBurstyAndBusyCallersNeverGetAnIdOlderThanTheBound() throws Exception {
        long bound = TimeUnit.MILLISECONDS.toNanos(100);
        PrefetchBuffer buffer = aging(Duration.ofNanos(bound));
        java.util.Random random = new java.util.Random(24);
        java.util.Set<Long> seen = new java.util.HashSet<>();
        long previous = 0;
        for (int call = 0; call < 20_000; call++) {
            int pattern = random.nextInt(1000);
            if (pattern < 5) {
                ticker.addAndGet(bound + random.nextInt((int) (5 * bound)));  // a quiet spell
            } else if (pattern < 60) {
                ticker.addAndGet(random.nextInt((int) bound));                 // a pause shorter than the bound
            } else {
                ticker.addAndGet(random.nextInt(20_000));                     // busy: up to 20 µs apart
            }
            long id = buffer.nextId();
            assertThat(ageOf(id)).as("age of ID %d at call %d", id, call).isLessThanOrEqualTo(bound);
            assertThat(seen.add(id)).as("ID %d handed out twice", id).isTrue();
            assertThat(id).isGreaterThan(previous);
            previous = id;
        }
        assertThat(buffer.expiredIds()).as("batches grew old in the quiet spells").isPositive();
        assertThat(List.copyOf(sizes)).as("busy spells grew the batches").contains(100);
    }

    /**
     * A server that takes a microsecond of the ticker per ID to reserve a batch, as one at a million IDs a second:
     * a batch of 100,000 arrives older than the 50 ms bound. The sizes halve until batches arrive in time, and the
     * caller gets IDs rather than waiting for fresh batches that never come.
     */
    @Test
    void batchesThatArriveTooOldShrinkUntilTheyArriveInTime() {
        long bound = TimeUnit.MILLISECONDS.toNanos(50);
        PrefetchBuffer buffer = new PrefetchBuffer(new BatchSizer(1, 100_000, 100_000, Duration.ofSeconds(1),
                Duration.ofNanos(bound)), 0.1, tickedRotation, (server, count, onReserved) -> {
                    long[] ids = agingFetch(server, count, onReserved);
                    ticker.addAndGet(count * 1000L);
                    return ids;
                }, Duration.ofSeconds(5), null, ticker::get);
        buffers.add(buffer);

        for (int call = 0; call < 100_000; call++) {
            long id = buffer.nextId();
            assertThat(ageOf(id)).as("age of ID %d at call %d", id, call).isLessThanOrEqualTo(bound);
        }

        assertThat(buffer.expiredIds()).isPositive();
        List<Integer> asked = List.copyOf(sizes);
        assertThat(asked.get(0)).isEqualTo(100_000);
        // At a microsecond per ID, no batch above 50,000 can arrive within 50 ms.
        assertThat(asked.subList(asked.size() - 3, asked.size())).allSatisfy(size -> assertThat(size).isLessThan(50_000));
    }
    /**
     * The buffer tells the sizer how long the server took to issue each batch, from the IDs' times, before the next
     * round asks: a first batch of 64,000 from a server at 1,024 IDs a millisecond (a MIN_GRANULARITY server with one
     * machine ID) took it 61.5 ms, so under a 100 ms bound the next asks for what it issues in 33 ms, not 128,000.
     */
    @Test
    void theNextRoundAsksForWhatTheServerIssuesInAThirdOfTheBound() throws InterruptedException {
        long nanosPerId = MS / 1024;
        // The first batch is reserved only once the caller waits for it, as when a client's first call comes before
        // its first batch: however busy the machine, the caller is there before the pace is known.
        CountDownLatch callerWaiting = new CountDownLatch(1);
        PrefetchBuffer.BatchFetch paced = new PrefetchBuffer.BatchFetch() {
            @Override
            public long[] fetch(IdServer server, int count, Runnable onReserved) throws InterruptedException {
                callerWaiting.await(10, TimeUnit.SECONDS);
                sizes.add(count);
                long first = nextId.getAndAdd(count);
                onReserved.run();
                return LongStream.range(first, first + count).toArray();
            }

            /** As the BatchFetcher reads it from the IDs' millisecond fields: the span less one unit. */
            @Override
            public long issueSpanNanos(long[] ids) {
                return Math.max(0, ids.length * nanosPerId - MS);
            }
        };
        PrefetchBuffer buffer = new PrefetchBuffer(new BatchSizer(1, 64_000, 100_000, Duration.ofSeconds(1),
                Duration.ofMillis(100)), 0.1, tickedRotation, paced, Duration.ofSeconds(5), null, ticker::get);
        buffers.add(buffer);
        releaseOnceTheCallerWaits(buffer, callerWaiting);

        assertThat(buffer.nextId()).isEqualTo(1);

        // 64,000 IDs whose times span 61.5 ms less a unit: 1,041 a millisecond, 34,708 in a third of 100 ms.
        assertThat(buffer.batchSize()).isEqualTo(34_708);
        for (int call = 1; call < 200_000 && sizes.size() < 3; call++) {
            buffer.nextId();
        }
        // The caller waited for the first batch, so the second round started once the server had reserved the first,
        // before its IDs were there to show the pace; the third asks for what the server issues in time.
        List<Integer> asked = List.copyOf(sizes);
        assertThat(asked).startsWith(64_000, 64_000, 34_708);
        assertThat(asked.subList(2, asked.size())).allSatisfy(size -> assertThat(size).isLessThanOrEqualTo(34_708));
    }
}
