package io.vesta.segment;

import io.vesta.test.FaultyDataSource;
import io.vesta.test.ManualTimeSource;
import io.vesta.test.TestDatabase;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLTimeoutException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * The segment allocator against one database. Subclasses supply the pool (H2, PostgreSQL, MariaDB); every
 * test makes its own table and drops it.
 */
abstract class SegmentIdServiceContract {

    private static final String TAG = "orders";

    protected String table;
    private final List<SegmentIdService> services = new ArrayList<>();
    private final List<ExecutorService> executors = new ArrayList<>();

    /** The pool of the database under test. */
    abstract DataSource pool();

    /** The DDL script {@link SegmentSchema} should pick for this database. */
    abstract String expectedScript();

    @BeforeEach
    void createTable() {
        table = TestDatabase.uniqueName("vesta_segment_t");
        assertThat(SegmentSchema.initialize(pool(), table)).isEqualTo(expectedScript());
    }

    @AfterEach
    void dropTable() throws SQLException {
        if (table == null) {
            return;
        }
        services.forEach(SegmentIdService::close);
        executors.forEach(ExecutorService::shutdownNow);
        try (Connection connection = pool().getConnection(); Statement statement = connection.createStatement()) {
            statement.execute("DROP TABLE " + table);
        }
    }

    // --- two nodes, many threads ---------------------------------------------------------------------------

    @Test
    void twoServicesOnOneTableIssue200000NumbersWithNoOverlapAndNoGapsBeyondTheirSegmentTails() throws Exception {
        insertTag(TAG, 1, 500);
        SegmentIdService first = track(builder(pool()).maxStep(4000).build());
        SegmentIdService second = track(builder(pool()).maxStep(4000).build());
        SegmentIdService[] nodes = {first, second};
        int threadsPerNode = 8;
        int perThread = 200_000 / (2 * threadsPerNode);

        ExecutorService pool = executor(2 * threadsPerNode);
        CountDownLatch start = new CountDownLatch(1);
        List<Future<long[]>> results = new ArrayList<>();
        long began = System.nanoTime();
        for (int t = 0; t < 2 * threadsPerNode; t++) {
            SegmentIdService node = nodes[t % 2];
            boolean batches = (t / 2) % 2 == 1;
            int seed = t;
            results.add(pool.submit(() -> {
                long[] mine = new long[perThread];
                int filled = 0;
                start.await();
                while (filled < perThread) {
                    if (batches) {
                        int count = Math.min(1 + (filled * 31 + seed) % 37, perThread - filled);
                        long[] batch = node.nextIds(TAG, count);
                        System.arraycopy(batch, 0, mine, filled, count);
                        filled += count;
                    } else {
                        mine[filled++] = node.nextId(TAG);
                    }
                }
                return mine;
            }));
        }
        start.countDown();
        long[] all = new long[200_000];
        int offset = 0;
        for (Future<long[]> result : results) {
            long[] mine = result.get(60, TimeUnit.SECONDS);
            for (int i = 1; i < mine.length; i++) {
                assertThat(mine[i]).as("a thread's numbers from one node increase").isGreaterThan(mine[i - 1]);
            }
            System.arraycopy(mine, 0, all, offset, mine.length);
            offset += mine.length;
        }
        long elapsedMillis = (System.nanoTime() - began) / 1_000_000;

        Arrays.sort(all);
        for (int i = 1; i < all.length; i++) {
            assertThat(all[i]).as("no number is issued twice").isNotEqualTo(all[i - 1]);
        }

        // Once no load is in flight, every number the table gave out is either issued or still in a buffer.
        List<long[]> ranges = new ArrayList<>();
        long tails = 0;
        for (SegmentIdService node : nodes) {
            awaitTrue(() -> !view(node).loading(), "background loads to finish");
            SegmentView view = view(node);
            if (view.position() < view.segmentEnd()) {
                ranges.add(new long[] {view.position(), view.segmentEnd()});
                tails += view.segmentEnd() - view.position();
            }
            if (view.nextReady()) {
                ranges.add(new long[] {view.nextStart(), view.nextEnd()});
                tails += view.nextEnd() - view.nextStart();
            }
        }
        int runStart = 0;
        for (int i = 1; i <= all.length; i++) {
            if (i == all.length || all[i] != all[i - 1] + 1) {
                ranges.add(new long[] {all[runStart], all[i - 1] + 1});
                runStart = i;
            }
        }
        ranges.sort(Comparator.comparingLong(range -> range[0]));
        long expected = 1;
        for (long[] range : ranges) {
            assertThat(range[0]).as("the next range starts where the previous ended: no gap, no overlap").isEqualTo(expected);
            expected = range[1];
        }
        assertThat(expected).as("the table's max_id is the end of everything given out").isEqualTo(maxId(TAG));
        assertThat(all.length + tails).isEqualTo(maxId(TAG) - 1);

        SegmentView a = view(first);
        SegmentView b = view(second);
        System.out.printf("[%s] 200000 numbers from 2 nodes x %d threads in %d ms; loads %d + %d, waits %d + %d, "
                        + "steps %d / %d, unused tails %d, max_id %d%n", getClass().getSimpleName(), threadsPerNode, elapsedMillis,
                a.loads(), b.loads(), a.waits(), b.waits(), a.step(), b.step(), tails, maxId(TAG));
        assertThat(a.step()).as("fast segments double the step up to maxStep").isEqualTo(4000);
        assertThat(b.step()).isEqualTo(4000);
    }

    // --- background refill ---------------------------------------------------------------------------------

    @Test
    void nextSegmentLoadsInTheBackgroundAndACallerWaitsOnlyWhenBothBuffersAreEmpty() throws Exception {
        insertTag(TAG, 1, 1000);
        FaultyDataSource database = FaultyDataSource.over(pool());
        SegmentIdService service = track(builder(database).build());

        assertThat(service.nextId(TAG)).isEqualTo(1);
        assertThat(view(service).waits()).as("the first call for a tag loads in the caller").isEqualTo(1);

        // A slow database: the refill started at 10% cannot finish, yet the whole segment is served at once.
        FaultyDataSource.Stall slow = database.stall(FaultyDataSource.StallPoint.CONNECTION);
        long began = System.nanoTime();
        for (long expected = 2; expected <= 1000; expected++) {
            assertThat(service.nextId(TAG)).isEqualTo(expected);
        }
        assertThat(Duration.ofNanos(System.nanoTime() - began)).isLessThan(Duration.ofSeconds(5));
        awaitTrue(() -> slow.blocked() == 1, "the refill to reach the database");
        assertThat(slow.lastBlockedThread()).startsWith("vesta-segment-loader-");
        SegmentView drained = view(service);
        assertThat(drained.loading()).isTrue();
        assertThat(drained.nextReady()).isFalse();
        assertThat(drained.remaining()).isZero();
        assertThat(drained.waits()).isEqualTo(1);

        // Both buffers empty: now, and only now, a caller waits for the load in flight.
        CompletableFuture<Long> waiting = CompletableFuture.supplyAsync(() -> service.nextId(TAG), executor(1));
        awaitTrue(() -> view(service).waits() == 2, "the caller to find both buffers empty");
        Thread.sleep(50);
        assertThat(waiting).isNotDone();
        slow.release();
        assertThat(waiting.get(10, TimeUnit.SECONDS)).isEqualTo(1001);
        assertThat(view(service).step()).as("one fast segment doubles the step").isEqualTo(2000);

        // Steady state: every refill is ready before its segment runs out, so nobody waits again.
        for (int segment = 0; segment < 5; segment++) {
            useUntilRefill(service);
            awaitTrue(() -> view(service).nextReady(), "the next segment to load");
            SegmentView view = view(service);
            long last = 0;
            for (long i = view.position(); i <= view.segmentEnd(); i++) {
                last = service.nextId(TAG);
            }
            assertThat(last).as("the call after the end switches to the next segment").isEqualTo(view.nextStart());
        }
        assertThat(view(service).waits()).isEqualTo(2);
        assertThat(view(service).loads()).isEqualTo(7);
    }

    /**
     * Eight callers at a steady pace across segment switches: every number once, and each switch loads one segment,
     * however many callers reach it. That no caller waits for the database at such a pace is a matter of timing,
     * which a loaded machine does not keep (a load whose thread is not scheduled for 70 ms makes the callers wait):
     * {@code SegmentBenchmark} measures it, and reports the calls that waited in steady state.
     */
    @Test
    void eightCallersAtASteadyPaceGetEveryNumberOnceWithOneLoadPerSwitch() throws Exception {
        insertTag(TAG, 1, 1000);
        SegmentIdService service = track(builder(pool()).build());
        service.nextId(TAG);
        while (view(service).step() < 64_000) {
            useUntilRefill(service);
            awaitTrue(() -> view(service).nextReady(), "the next segment to load");
            SegmentView view = view(service);
            for (long i = view.position(); i <= view.segmentEnd(); i++) {
                service.nextId(TAG);
            }
        }
        SegmentView before = view(service);

        int threads = 8;
        int perThread = 25_000;
        ExecutorService pool = executor(threads);
        List<Future<long[]>> callers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            callers.add(pool.submit(() -> {
                long[] numbers = new long[perThread];
                for (int i = 0; i < perThread; i++) {
                    if (i % 10 == 0) {
                        LockSupport.parkNanos(50_000);
                    }
                    numbers[i] = service.nextId(TAG);
                }
                return numbers;
            }));
        }
        long[] all = new long[threads * perThread];
        for (int t = 0; t < threads; t++) {
            long[] numbers = callers.get(t).get(60, TimeUnit.SECONDS);
            for (int i = 1; i < numbers.length; i++) {
                assertThat(numbers[i]).as("one caller's numbers increase").isGreaterThan(numbers[i - 1]);
            }
            System.arraycopy(numbers, 0, all, t * perThread, perThread);
        }
        SegmentView after = view(service);
        System.out.printf("[%s] steady pace, 8 threads, 200000 numbers: %d loads, %d waits, step %d%n",
                getClass().getSimpleName(), after.loads() - before.loads(), after.waits() - before.waits(),
                after.step());
        assertThat(Arrays.stream(all).distinct().count()).as("every number once").isEqualTo(all.length);
        long switches = after.loads() - before.loads();
        assertThat(switches).as("segments of at least 64,000 switched during 200,000 numbers")
                .isBetween(1L, (long) all.length / 64_000 + 2);
    }

    // --- dynamic step -----------------------------------------------------------------------------------------

    @Test
    void stepDoublesWhileSegmentsLastLessThanTheTargetAndHalvesBackToTheTableStepWhenTheyLastTwiceAsLong() throws Exception {
        insertTag(TAG, 1, 100);
        ManualTimeSource clock = new ManualTimeSource(Instant.parse("2026-06-01T12:00:00Z"));
        SegmentIdService service = track(builder(pool()).timeSource(clock).maxStep(800)
                .targetDuration(Duration.ofMinutes(15)).build());

        service.nextId(TAG);
        assertThat(view(service).step()).as("the first load takes the table's step").isEqualTo(100);
        long allocated = 100;
        List<Integer> steps = new ArrayList<>();
        Duration[] segmentLasted = {
                Duration.ofMinutes(1), Duration.ofMinutes(1), Duration.ofMinutes(1), Duration.ofMinutes(1), // doubling, capped
                Duration.ofMinutes(20),                                                                  // within [target, 2 target): kept
                Duration.ofMinutes(30), Duration.ofHours(1), Duration.ofHours(1), Duration.ofHours(1),     // halving, floored
        };
        for (Duration lasted : segmentLasted) {
            int step = nextSegmentAfter(service, clock, lasted);
            steps.add(step);
            allocated += step;
        }
        assertThat(steps).containsExactly(200, 400, 800, 800, 800, 400, 200, 100, 100);
        assertThat(view(service).lastLoadTime()).isEqualTo(clock.now());

        // The operator raises the table's step: it becomes the floor from the load after the one that reads it.
        execute("UPDATE " + table + " SET step = 300 WHERE biz_tag = '" + TAG + "'");
        int readIt = nextSegmentAfter(service, clock, Duration.ofHours(1));
        int floored = nextSegmentAfter(service, clock, Duration.ofHours(1));
        assertThat(readIt).isEqualTo(100);
        assertThat(view(service).tableStep()).isEqualTo(300);
        assertThat(floored).isEqualTo(300);
        allocated += readIt + floored;

        assertThat(maxId(TAG)).as("every UPDATE moved max_id by the dynamic step").isEqualTo(1 + allocated);
    }

    /**
     * Lets {@code lasted} pass, uses the current segment to its refill threshold, and returns the size of the
     * segment that loads; then uses up the current one so that the next call switches.
     */
    private int nextSegmentAfter(SegmentIdService service, ManualTimeSource clock, Duration lasted) throws InterruptedException {
        clock.advance(lasted);
        useUntilRefill(service);
        awaitTrue(() -> view(service).nextReady(), "the next segment to load");
        SegmentView loaded = view(service);
        for (long i = loaded.position(); i < loaded.segmentEnd(); i++) {
            service.nextId(TAG);
        }
        assertThat(service.nextId(TAG)).isEqualTo(loaded.nextStart());
        return (int) (loaded.nextEnd() - loaded.nextStart());
    }

    /** Draws numbers until the draw that starts the background load. */
    private static void useUntilRefill(SegmentIdService service) {
        SegmentView before = view(service);
        for (long i = before.position(); i < before.segmentEnd() && !view(service).loading() && !view(service).nextReady(); i++) {
            service.nextId(TAG);
        }
        assertThat(view(service).loading() || view(service).nextReady()).as("a refill started").isTrue();
    }

    // --- monitoring ----------------------------------------------------------------------------------------

    @Test
    void eachTagIsAnnouncedOnceAfterItsFirstLoadAndATagThatNeverLoadedIsNot() throws Exception {
        insertTag(TAG, 1, 10);
        SegmentIdService service = track(builder(pool()).build());
        List<String> announced = new CopyOnWriteArrayList<>();
        service.addTagLoadedListener(announced::add);

        assertThatThrownBy(() -> service.nextId("invoices")).isInstanceOf(UnknownBizTagException.class);
        assertThat(service.nextIds(TAG, 25)).hasSize(25);
        assertThat(view(service).loads()).as("several segments").isGreaterThan(1);
        assertThat(announced).containsExactly(TAG);

        List<String> later = new ArrayList<>();
        service.addTagLoadedListener(later::add);
        assertThat(later).as("a listener added later learns the tags already loaded").containsExactly(TAG);
    }

    @Test
    void aListenerThatThrowsDoesNotFailTheCaller() {
        insertTag(TAG, 1, 10);
        SegmentIdService service = track(builder(pool()).build());
        service.addTagLoadedListener(tag -> {
            throw new IllegalStateException("a broken listener");
        });

        assertThat(service.nextId(TAG)).isEqualTo(1);
        assertThat(view(service).lastFailure()).isNull();
    }

    @Test
    void remainingInMemoryCountsTheRestOfTheSegmentInUseAndTheNextSegment() throws Exception {
        insertTag(TAG, 1, 100);
        SegmentIdService service = track(builder(pool()).maxStep(100).build());

        assertThat(service.nextId(TAG)).isEqualTo(1);
        assertThat(view(service).remainingInMemory()).isEqualTo(99);

        useUntilRefill(service);
        awaitTrue(() -> view(service).nextReady(), "the next segment to load");
        SegmentView view = view(service);
        assertThat(view.remainingInMemory()).as("the next segment holds a step of 100").isEqualTo(view.remaining() + 100);
    }

    // --- database down -------------------------------------------------------------------------------------

    @Test
    void databaseDownBuffersKeepServingThenAClearErrorNamesTagAndCauseThenServiceResumes() throws Exception {
        insertTag(TAG, 1, 100);
        FaultyDataSource database = FaultyDataSource.over(pool());
        SegmentIdService service = track(builder(database).build());
        assertThat(service.nextId(TAG)).isEqualTo(1);

        database.down(true);
        for (long expected = 2; expected <= 100; expected++) {
            assertThat(service.nextId(TAG)).isEqualTo(expected);
        }
        awaitTrue(() -> view(service).failedLoads() >= 1 && !view(service).loading(), "the background refill to fail");
        assertThat(view(service).lastFailure()).contains(FaultyDataSource.DOWN_MESSAGE);

        for (int attempt = 0; attempt < 2; attempt++) {
            assertThatThrownBy(() -> service.nextId(TAG))
                    .isInstanceOf(SegmentUnavailableException.class)
                    .hasMessageContaining("bizTag '" + TAG + "'")
                    .hasMessageContaining(table)
                    .hasMessageContaining(FaultyDataSource.DOWN_MESSAGE)
                    .hasCauseInstanceOf(SQLException.class)
                    .satisfies(e -> assertThat(((SegmentUnavailableException) e).bizTag()).isEqualTo(TAG));
        }
        assertThatThrownBy(() -> service.nextIds(TAG, 3)).isInstanceOf(SegmentUnavailableException.class);

        database.down(false);
        assertThat(service.nextId(TAG)).as("nothing was allocated while down: the table carries on at 101").isEqualTo(101);
        assertThat(service.nextIds(TAG, 3)).containsExactly(102, 103, 104);
        assertThat(view(service).lastFailure()).isNull();
        assertThat(service.segments()).extracting(SegmentView::bizTag).containsExactly(TAG);
    }

    @Test
    void databaseLostMidRunUnderLoadNeverRepeatsANumberAndEveryThreadRecovers() throws Exception {
        insertTag(TAG, 1, 200);
        FaultyDataSource database = FaultyDataSource.over(pool());
        SegmentIdService service = track(builder(database).retryInterval(Duration.ofMillis(10)).build());
        int threads = 4;
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong issued = new AtomicLong();
        AtomicLongArray failuresSeen = new AtomicLongArray(threads);
        AtomicLongArray recoveredAfterFailure = new AtomicLongArray(threads);
        ConcurrentLinkedQueue<Throwable> unexpected = new ConcurrentLinkedQueue<>();
        ExecutorService pool = executor(threads);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        List<Future<long[]>> results = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int me = t;
            results.add(pool.submit(() -> {
                long[] mine = new long[1 << 16];
                int count = 0;
                for (int i = 0; i < 4_000_000 && !stop.get() && System.nanoTime() < deadline; i++) {
                    if (i % 16 == 0) {
                        // Paced, so that the switch lands mid-run rather than after the threads are done.
                        LockSupport.parkNanos(100_000);
                    }
                    try {
                        long id = service.nextId(TAG);
                        if (count == mine.length) {
                            mine = Arrays.copyOf(mine, count * 2);
                        }
                        mine[count++] = id;
                        issued.incrementAndGet();
                        if (failuresSeen.get(me) > 0) {
                            recoveredAfterFailure.incrementAndGet(me);
                        }
                    } catch (SegmentUnavailableException e) {
                        failuresSeen.incrementAndGet(me);
                        if (!e.getMessage().contains("'" + TAG + "'") || !(e.getCause() instanceof SQLException)) {
                            unexpected.add(e);
                        }
                    } catch (RuntimeException e) {
                        unexpected.add(e);
                    }
                }
                return Arrays.copyOf(mine, count);
            }));
        }
        awaitTrue(() -> issued.get() > 5_000, "numbers to flow");
        database.down(true);
        long issuedWhenLost = issued.get();
        awaitTrue(() -> IntStream.range(0, threads).allMatch(t -> failuresSeen.get(t) > 0), "every thread to see the database gone");
        database.down(false);
        awaitTrue(() -> IntStream.range(0, threads).allMatch(t -> recoveredAfterFailure.get(t) > 100), "every thread to recover");
        stop.set(true);

        List<Long> all = new ArrayList<>();
        for (Future<long[]> result : results) {
            long[] mine = result.get(10, TimeUnit.SECONDS);
            for (int i = 1; i < mine.length; i++) {
                assertThat(mine[i]).isGreaterThan(mine[i - 1]);
            }
            Arrays.stream(mine).forEach(all::add);
        }
        assertThat(unexpected).isEmpty();
        assertThat(all).doesNotHaveDuplicates();
        assertThat(issued.get()).isGreaterThan(issuedWhenLost);
        System.out.printf("[%s] database lost mid-run: %d numbers, %d refusals while down, %d failed loads%n",
                getClass().getSimpleName(), all.size(), IntStream.range(0, threads).mapToLong(failuresSeen::get).sum(),
                view(service).failedLoads());
    }

    // --- a database that hangs: the row locked past the timeout ------------------------------------------

    /** The timeout of the lock tests: JDBC's smallest. */
    static final Duration TIMEOUT = Duration.ofSeconds(1);
    /** What the failure of an UPDATE that waited for a locked row past {@link #TIMEOUT} says. */
    static final String TIMED_OUT = "did not finish within timeout=1s";

    /**
     * How long an UPDATE waits for a locked row before it fails: {@link #TIMEOUT}, where the query timeout cancels
     * a lock wait (PostgreSQL, MariaDB).
     */
    Duration lockWaitEnds() {
        return TIMEOUT;
    }

    /** What the failure of an UPDATE that waited for a locked row says: {@link #TIMED_OUT} where the timeout cancels it. */
    String lockWaitFailure() {
        return TIMED_OUT;
    }

    /**
     * How long a caller may take to fail on a locked row: the load in flight and its own, each one statement cut
     * short, with room for a loaded machine; far below what the drivers wait on their own (forever on PostgreSQL,
     * innodb_lock_wait_timeout's 50 s on MariaDB).
     */
    private Duration failsWithin() {
        return lockWaitEnds().multipliedBy(2).plusSeconds(3);
    }

    @Test
    void aRowLockedPastTheTimeoutFailsTheCallerWithinTheBoundWritesNothingAndTheServiceResumesOnceReleased() throws Exception {
        insertTag(TAG, 1, 10);
        SegmentIdService service = track(builder(pool()).timeout(TIMEOUT).build());
        assertThat(service.timeout()).isEqualTo(TIMEOUT);
        assertThat(service.nextIds(TAG, 5)).containsExactly(1, 2, 3, 4, 5);
        awaitTrue(() -> view(service).nextReady(), "the next segment to load in the background");
        long maxIdBefore = maxId(TAG);

        try (Connection other = lockRow(TAG)) {
            // Both buffers are used up while the row is locked; the background refill they start blocks on the lock.
            long[] inMemory = service.nextIds(TAG, (int) view(service).remainingInMemory());
            assertThat(inMemory[inMemory.length - 1]).isEqualTo(maxIdBefore - 1);

            long began = System.nanoTime();
            Future<Long> call = executor(1).submit(() -> service.nextId(TAG));
            ExecutionException failed = catchThrowableOfType(ExecutionException.class,
                    () -> call.get(failsWithin().toSeconds() + 30, TimeUnit.SECONDS));
            Duration took = Duration.ofNanos(System.nanoTime() - began);
            assertThat(failed).as("the call fails rather than waits for the lock").isNotNull();
            assertThat(failed.getCause()).isInstanceOf(SegmentUnavailableException.class)
                    .hasMessageContaining("bizTag '" + TAG + "'")
                    .hasMessageContaining(table)
                    .hasMessageContaining(lockWaitFailure())
                    .cause().isInstanceOf(SQLTimeoutException.class);
            assertThat(took).as("the caller's wait").isGreaterThanOrEqualTo(lockWaitEnds().minusMillis(50))
                    .isLessThan(failsWithin());
            assertThat(view(service).lastFailure()).contains(lockWaitFailure());
            // Read beside the lock (a consistent read does not wait for it): no allocation went through.
            assertThat(maxId(TAG)).as("nothing half-written").isEqualTo(maxIdBefore);
            other.rollback();
        }

        long next = service.nextId(TAG);
        assertThat(next).as("the table carries on where it stood").isEqualTo(maxIdBefore);
        long[] more = service.nextIds(TAG, 50);
        assertThat(more[0]).isEqualTo(next + 1);
        assertThat(more).doesNotHaveDuplicates().isSorted();
        assertThat(maxId(TAG)).isGreaterThan(more[more.length - 1]);
        assertThat(view(service).lastFailure()).isNull();
    }

    @Test
    void callersQueuedOnALockedRowFailWithinOneLoadEachNotOneLoadAfterAnother() throws Exception {
        insertTag(TAG, 1, 10);
        SegmentIdService service = track(builder(pool()).timeout(TIMEOUT).retryInterval(Duration.ofMinutes(1)).build());
        assertThat(service.nextId(TAG)).isEqualTo(1);
        awaitTrue(() -> view(service).nextReady() || view(service).remaining() > 0 && !view(service).loading(),
                "the first segment to settle");
        int callers = 12;
        ExecutorService pool = executor(callers);
        Set<Long> issued = ConcurrentHashMap.newKeySet();

        try (Connection other = lockRow(TAG)) {
            long maxIdBefore = maxId(TAG);
            for (long id : service.nextIds(TAG, (int) view(service).remainingInMemory())) {
                issued.add(id);
            }
            // The refill that draining started fails on the lock first; the callers below then all find the
            // buffers empty with nothing in flight, and queue on the tag.
            awaitTrue(() -> view(service).failedLoads() >= 1 && !view(service).loading(), "the background refill to time out");

            CyclicBarrier start = new CyclicBarrier(callers);
            List<Future<Duration>> waits = new ArrayList<>();
            for (int i = 0; i < callers; i++) {
                waits.add(pool.submit(() -> {
                    start.await();
                    long began = System.nanoTime();
                    assertThatThrownBy(() -> service.nextId(TAG)).isInstanceOf(SegmentUnavailableException.class)
                            .hasMessageContaining(lockWaitFailure());
                    return Duration.ofNanos(System.nanoTime() - began);
                }));
            }
            Duration longest = Duration.ZERO;
            for (Future<Duration> wait : waits) {
                Duration took = wait.get(callers * lockWaitEnds().toSeconds() + 30, TimeUnit.SECONDS);
                longest = took.compareTo(longest) > 0 ? took : longest;
            }
            // One after another, the last would wait twelve timeouts.
            assertThat(longest).as("the longest wait of %d queued callers", callers).isLessThan(failsWithin());
            assertThat(maxId(TAG)).as("nothing half-written").isEqualTo(maxIdBefore);
            other.rollback();
        }

        List<Future<long[]>> after = new ArrayList<>();
        for (int i = 0; i < callers; i++) {
            after.add(pool.submit(() -> service.nextIds(TAG, 7)));
        }
        for (Future<long[]> numbers : after) {
            for (long id : numbers.get(30, TimeUnit.SECONDS)) {
                assertThat(issued.add(id)).as("number %d issued once", id).isTrue();
            }
        }
    }

    /** A connection of another "node" that holds the tag's row locked (an uncommitted UPDATE) until rolled back. */
    private Connection lockRow(String tag) throws SQLException {
        Connection connection = pool().getConnection();
        try {
            connection.setAutoCommit(false);
            try (PreparedStatement lock = connection.prepareStatement(
                    "UPDATE " + table + " SET description = 'locked by another transaction' WHERE biz_tag = ?")) {
                lock.setString(1, tag);
                assertThat(lock.executeUpdate()).isEqualTo(1);
            }
            return connection;
        } catch (SQLException | RuntimeException | Error e) {
            connection.close();
            throw e;
        }
    }

    // --- unknown tags and creation -----------------------------------------------------------------------

    @Test
    void unknownTagIsAClearErrorNamingTagAndTableAndIsNotListed() throws Exception {
        SegmentIdService service = track(builder(pool()).build());

        assertThatThrownBy(() -> service.nextId("invoices"))
                .isInstanceOf(UnknownBizTagException.class)
                .hasMessageContaining("'invoices'")
                .hasMessageContaining("table " + table)
                .hasMessageContaining("createTag")
                .hasMessageContaining("auto-create-tags");
        assertThat(service.segments()).isEmpty();

        insertTag("invoices", 1, 10);
        assertThat(service.nextIds("invoices", 12)).containsExactly(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12);
    }

    @Test
    void twoNodesCreatingTheSameTagAtOnceBothGetNumbersFromOneRow() throws Exception {
        // Both nodes find no row and reach their INSERT together: one insert wins, the other's fails on the key.
        CyclicBarrier bothAtInsert = new CyclicBarrier(2);
        FaultyDataSource[] databases = {FaultyDataSource.over(pool()), FaultyDataSource.over(pool())};
        for (FaultyDataSource database : databases) {
            database.beforeStatement(sql -> sql.startsWith("INSERT"), sql -> {
                try {
                    bothAtInsert.await(10, TimeUnit.SECONDS);
                } catch (InterruptedException | BrokenBarrierException | TimeoutException e) {
                    throw new IllegalStateException("the other node never reached its INSERT", e);
                }
            });
        }
        SegmentIdService first = track(builder(databases[0]).autoCreate(true).defaultStep(50).build());
        SegmentIdService second = track(builder(databases[1]).autoCreate(true).defaultStep(50).build());
        ExecutorService pool = executor(2);

        Future<Long> a = pool.submit(() -> first.nextId("tickets"));
        Future<Long> b = pool.submit(() -> second.nextId("tickets"));

        assertThat(List.of(a.get(20, TimeUnit.SECONDS), b.get(20, TimeUnit.SECONDS))).containsExactlyInAnyOrder(1L, 51L);
        assertThat(count("tickets")).isEqualTo(1);
        assertThat(maxId("tickets")).isEqualTo(101);
        assertThat(tableStep("tickets")).isEqualTo(50);
    }

    @Test
    void numbersOfAnExistingTagNeverCreateOneWhateverAutoCreationSays() throws Exception {
        SegmentIdService everyTag = track(builder(pool()).autoCreate(true).build());
        SegmentIdService matching = track(builder(pool()).autoCreateTags("ghost.*").build());

        for (SegmentIdService service : List.of(everyTag, matching)) {
            assertThatThrownBy(() -> service.nextIdsOfExistingTag("ghost", 1)).isInstanceOf(UnknownBizTagException.class)
                    .hasMessageContaining("'ghost'");
            assertThat(service.segments()).isEmpty();
        }
        assertThat(count("ghost")).isZero();

        insertTag("ghost", 1, 10);
        assertThat(matching.nextIdsOfExistingTag("ghost", 3)).containsExactly(1, 2, 3);
    }

    @Test
    void autoCreateTagsCreatesOnlyTheTagsItMatchesWhole() throws Exception {
        SegmentIdService service = track(builder(pool()).autoCreateTags("tenant-[0-9]+|invoices").defaultStep(20).build());

        assertThat(service.nextId("tenant-7")).isEqualTo(1);
        assertThat(service.nextIds("invoices", 2)).containsExactly(1, 2);
        for (String other : List.of("tenant-x", "xtenant-7", "tenant-7x", "orders")) {
            assertThatThrownBy(() -> service.nextId(other)).as(other).isInstanceOf(UnknownBizTagException.class);
            assertThat(count(other)).as(other).isZero();
        }
        assertThat(tableStep("tenant-7")).isEqualTo(20);
        assertThat(service.segments()).extracting(SegmentView::bizTag).containsExactly("invoices", "tenant-7");
    }

    @Test
    void createTagInsertsTheRowOnceWithItsStartAndStepAndLeavesAnExistingRowAlone() throws Exception {
        SegmentIdService service = track(builder(pool()).build());

        SegmentIdService.CreatedTag created = service.createTag("orders.eu:2", 25, 1000);
        assertThat(created).isEqualTo(new SegmentIdService.CreatedTag("orders.eu:2", true, 1000, 25));
        // Two numbers: below the refill threshold, so no background load moves max_id under the next assertion.
        assertThat(service.nextIds("orders.eu:2", 2)).containsExactly(1000, 1001);

        SegmentIdService.CreatedTag again = service.createTag("orders.eu:2", 7, 1);
        assertThat(again).isEqualTo(new SegmentIdService.CreatedTag("orders.eu:2", false, 1025, 25));
        assertThat(count("orders.eu:2")).isEqualTo(1);
        assertThat(maxId("orders.eu:2")).isEqualTo(1025);

        assertThatThrownBy(() -> service.createTag("orders;x", 10, 1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("bizTag must be").hasMessageContaining("\"orders;x\"");
        assertThatThrownBy(() -> service.createTag("a", 0, 1)).hasMessage("step must be in [1, 1000000000], was 0");
        assertThatThrownBy(() -> service.createTag("a", 10, 0)).hasMessage("start must be in [1, 2^62 - step] = [1, "
                + ((1L << 62) - 10) + "], was 0");
        assertThat(count("a")).isZero();
    }

    // --- what idle and surplus tags cost -------------------------------------------------------------------

    @Test
    void anIdleBufferIsDroppedAndItsTagLoadsAFreshSegmentWithNoNumberRepeated() throws Exception {
        insertTag(TAG, 1, 100);
        insertTag("busy", 1, 100);
        ManualTimeSource clock = new ManualTimeSource(Instant.parse("2026-06-01T12:00:00Z"));
        SegmentIdService service = track(builder(pool()).timeSource(clock).idleTimeout(Duration.ofMinutes(10)).build());
        List<String> droppedTags = new CopyOnWriteArrayList<>();
        service.addTagDroppedListener(droppedTags::add);
        List<Long> numbers = new ArrayList<>();
        for (long id : service.nextIds(TAG, 5)) {
            numbers.add(id);
        }
        service.nextId("busy");
        service.segments(); // a sweep: both seen in use

        for (int minute = 0; minute < 12; minute++) {
            clock.advance(Duration.ofMinutes(1));
            service.nextId("busy");
            service.segments();
        }

        assertThat(droppedTags).containsExactly(TAG);
        assertThat(service.segment(TAG)).isEmpty();
        assertThat(service.segment("busy")).isPresent();
        assertThat(service.droppedBuffers()).isEqualTo(1);
        // The rest of the dropped segment (6..100) is skipped, as at a restart; the next segment starts after it.
        for (long id : service.nextIds(TAG, 5)) {
            numbers.add(id);
        }
        assertThat(numbers).doesNotHaveDuplicates().isSorted().containsExactly(1L, 2L, 3L, 4L, 5L, 101L, 102L, 103L, 104L, 105L);
    }

    @Test
    void loadingMoreTagsThanTheCapDropsTheLeastRecentlyUsedAndNoNumberRepeats() throws Exception {
        ManualTimeSource clock = new ManualTimeSource(Instant.parse("2026-06-01T12:00:00Z"));
        SegmentIdService service = track(builder(pool()).timeSource(clock).autoCreate(true).defaultStep(10)
                .maxBufferedTags(3).build());
        List<String> droppedTags = new CopyOnWriteArrayList<>();
        service.addTagDroppedListener(droppedTags::add);
        java.util.Map<String, List<Long>> numbers = new java.util.TreeMap<>();
        for (int round = 0; round < 3; round++) {
            for (int tag = 0; tag < 8; tag++) {
                clock.advance(Duration.ofSeconds(1));
                String name = "t" + tag;
                long id = service.nextId(name);
                numbers.computeIfAbsent(name, n -> new ArrayList<>()).add(id);
                assertThat(service.bufferedTags()).isLessThanOrEqualTo(3);
            }
        }
        // Eight tags through three places, round robin: each load dropped the one used longest ago.
        assertThat(droppedTags).hasSize(21).startsWith("t0", "t1", "t2", "t3", "t4");
        assertThat(service.segments()).extracting(SegmentView::bizTag).containsExactly("t5", "t6", "t7");
        numbers.forEach((tag, ids) -> assertThat(ids).as(tag).containsExactly(1L, 11L, 21L));
    }

    // --- batches and schema --------------------------------------------------------------------------------

    @Test
    void batchAcrossSegmentsTakesTheTailThenTheNextSegment() {
        insertTag(TAG, 1, 100);
        SegmentIdService service = track(builder(pool()).build());

        long[] batch = service.nextIds(TAG, 250);

        assertThat(batch).hasSize(250);
        for (int i = 0; i < batch.length; i++) {
            assertThat(batch[i]).isEqualTo(i + 1);
        }
        assertThat(service.nextId(TAG)).isEqualTo(251);
    }

    @Test
    void closedServiceServesWhatItHoldsThenRefusesToLoad() {
        insertTag(TAG, 1, 10);
        SegmentIdService service = track(builder(pool()).build());
        assertThat(service.nextId(TAG)).isEqualTo(1);

        service.close();

        assertThat(service.nextIds(TAG, 9)).containsExactly(2, 3, 4, 5, 6, 7, 8, 9, 10);
        assertThatThrownBy(() -> service.nextId(TAG))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("SegmentIdService is closed: no more segments are loaded (bizTag 'orders')");
    }

    @Test
    void schemaInitializationIsIdempotent() throws SQLException {
        insertTag(TAG, 7, 3);
        assertThat(SegmentSchema.initialize(pool(), table)).isEqualTo(expectedScript());
        assertThat(maxId(TAG)).isEqualTo(7);
    }

    /** Nodes that start together all create the table; each create succeeds when another node's wins the race. */
    @Test
    void nodesCreatingTheTableAtOnceAllSucceed() throws Exception {
        int nodes = 6;
        ExecutorService executor = executor(nodes);
        for (int round = 0; round < 15; round++) {
            String fresh = table + "_r" + round;
            CyclicBarrier together = new CyclicBarrier(nodes);
            List<Future<String>> creates = new ArrayList<>();
            for (int node = 0; node < nodes; node++) {
                creates.add(executor.submit(() -> {
                    together.await(10, TimeUnit.SECONDS);
                    return SegmentSchema.initialize(pool(), fresh);
                }));
            }
            try {
                for (Future<String> create : creates) {
                    assertThat(create.get(30, TimeUnit.SECONDS)).isEqualTo(expectedScript());
                }
            } finally {
                try (Connection connection = pool().getConnection(); Statement statement = connection.createStatement()) {
                    statement.execute("DROP TABLE IF EXISTS " + fresh);
                }
            }
        }
    }

    // --- helpers -----------------------------------------------------------------------------------------

    private SegmentIdServiceBuilder builder(DataSource dataSource) {
        return SegmentIdService.builder().dataSource(dataSource).table(table);
    }

    private SegmentIdService track(SegmentIdService service) {
        services.add(service);
        return service;
    }

    private ExecutorService executor(int threads) {
        ExecutorService executor = Executors.newFixedThreadPool(threads);
        executors.add(executor);
        return executor;
    }

    private static SegmentView view(SegmentIdService service) {
        return service.segment(TAG).orElseThrow();
    }

    private static void awaitTrue(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("Timed out after 15 s waiting for " + what);
            }
            Thread.sleep(1);
        }
    }

    private void insertTag(String tag, long maxId, int step) {
        try (Connection connection = pool().getConnection();
             PreparedStatement insert = connection.prepareStatement(
                     "INSERT INTO " + table + " (biz_tag, max_id, step, description) VALUES (?, ?, ?, ?)")) {
            insert.setString(1, tag);
            insert.setLong(2, maxId);
            insert.setInt(3, step);
            insert.setString(4, "test");
            insert.executeUpdate();
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private void execute(String sql) throws SQLException {
        try (Connection connection = pool().getConnection(); Statement statement = connection.createStatement()) {
            statement.executeUpdate(sql);
        }
    }

    private long maxId(String tag) throws SQLException {
        return queryLong("SELECT max_id FROM " + table + " WHERE biz_tag = ?", tag);
    }

    private long tableStep(String tag) throws SQLException {
        return queryLong("SELECT step FROM " + table + " WHERE biz_tag = ?", tag);
    }

    private long count(String tag) throws SQLException {
        return queryLong("SELECT COUNT(*) FROM " + table + " WHERE biz_tag = ?", tag);
    }

    private long queryLong(String sql, String tag) throws SQLException {
        try (Connection connection = pool().getConnection(); PreparedStatement query = connection.prepareStatement(sql)) {
            query.setString(1, tag);
            try (ResultSet row = query.executeQuery()) {
                assertThat(row.next()).isTrue();
                return row.getLong(1);
            }
        }
    }
}
