package io.vesta.benchmarks;

import io.vesta.segment.SegmentIdService;
import io.vesta.segment.SegmentSchema;
import me.ahoo.cosid.segment.IdSegmentDistributor;
import me.ahoo.cosid.segment.SegmentChainId;
import me.ahoo.cosid.segment.concurrent.PrefetchWorkerExecutorService;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.IterationParams;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * Segment allocators on PostgreSQL, one operation per number, both fed from a Vesta segment table: Vesta's
 * {@link SegmentIdService} and CosId's {@link SegmentChainId} through an {@link IdSegmentDistributor} that runs
 * the same transaction as Vesta (UPDATE max_id by the step, then SELECT it). {@code maxStep} is Vesta's
 * largest step (its dynamic step starts at the table's 1000 and doubles while segments last less than the
 * 15-minute target) and CosId's step (CosId merges several steps into one fetch when its prefetcher finds
 * itself short, so its fetches grow past the step on their own). 1,000,000 is Vesta's default; at the
 * 50-100 million numbers a second of this saturating benchmark such a segment lasts 10-20 ms, about what a
 * background load takes when the benchmark's own threads hold both cores of a small machine, so the run also
 * shows a step of 16,777,216 (2^24 x 1000 reached by doubling), which lasts a few hundred ms. Round trips are
 * counted per run and written to {@code segment-db.csv} (see {@link DatabaseBenchmarkState});
 * {@link SegmentReport} puts them beside the throughput.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 5, time = 3)
// A fixed, pre-touched heap, as in the module's other benchmarks.
@Fork(value = 1, jvmArgsAppend = {"-Xms512m", "-Xmx512m", "-XX:+AlwaysPreTouch"})
public class SegmentBenchmark {

    static final String TAG = "bench";
    static final int TABLE_STEP = 1000;

    @State(Scope.Benchmark)
    public static class VestaState extends DatabaseBenchmarkState {

        @Param({"1000000", "16777216"})
        public int maxStep;

        SegmentIdService service;

        /** The engine's own count: calls that found both buffers empty, whether they loaded or awaited the load. */
        @Override
        long callerWaitsSoFar() {
            return service.segment(TAG).orElseThrow().waits();
        }

        @Setup(Level.Trial)
        public void build() {
            open();
            SegmentSchema.initialize(pool, table);
            execute("INSERT INTO " + table + " (biz_tag, max_id, step, description) VALUES ('" + TAG + "', 1, " + TABLE_STEP
                    + ", 'Vesta benchmark')");
            service = SegmentIdService.builder().dataSource(dataSource).table(table).maxStep(maxStep).build();
            service.nextId(TAG); // the first call for a tag always waits for the database
        }

        @Setup(Level.Iteration)
        public void startIteration(IterationParams iteration) {
            startIteration();
        }

        @TearDown(Level.Iteration)
        public void endIteration(IterationParams iteration) {
            super.endIteration(iteration);
        }

        @TearDown(Level.Trial)
        public void close(BenchmarkParams benchmark) {
            System.out.println(service.segment(TAG).orElseThrow());
            service.close();
            execute("DROP TABLE " + table);
            finish(benchmark, maxStep);
        }
    }

    @State(Scope.Benchmark)
    public static class CosIdState extends DatabaseBenchmarkState {

        @Param({"1000000", "16777216"})
        public int maxStep;

        SegmentChainId chain;
        /** The chain found by tag name, as an application with several tags finds it (and as Vesta's API does). */
        final Map<String, SegmentChainId> chains = new ConcurrentHashMap<>();
        PrefetchWorkerExecutorService prefetch;
        TableDistributor distributor;

        /**
         * A CosId caller that finds no segment ahead loads one itself, in its own thread: those loads. (A second
         * caller blocked behind that load is not seen here; Vesta's count includes such callers.)
         */
        @Override
        long callerWaitsSoFar() {
            return distributor.callerLoads.sum();
        }

        @Setup(Level.Trial)
        public void build() {
            open();
            SegmentSchema.initialize(pool, table);
            execute("INSERT INTO " + table + " (biz_tag, max_id, step, description) VALUES ('" + TAG + "', 0, " + TABLE_STEP
                    + ", 'CosId benchmark')");
            // CosId's defaults (prefetch every second, safe distance 2), on a pool of its own so that tear-down
            // can stop it before the connection pool closes.
            prefetch = new PrefetchWorkerExecutorService(PrefetchWorkerExecutorService.DEFAULT_PREFETCH_PERIOD,
                    Runtime.getRuntime().availableProcessors());
            distributor = new TableDistributor(dataSource, table, TAG, maxStep);
            chain = new SegmentChainId(Long.MAX_VALUE, SegmentChainId.DEFAULT_SAFE_DISTANCE, distributor, prefetch);
            chains.put(TAG, chain);
            chain.generate();
        }

        @Setup(Level.Iteration)
        public void startIteration(IterationParams iteration) {
            startIteration();
        }

        @TearDown(Level.Iteration)
        public void endIteration(IterationParams iteration) {
            super.endIteration(iteration);
        }

        @TearDown(Level.Trial)
        public void close(BenchmarkParams benchmark) throws InterruptedException {
            System.out.println(chain.getHead());
            prefetch.shutdown();
            Thread.sleep(Duration.ofMillis(200).toMillis());
            execute("DROP TABLE " + table);
            finish(benchmark, maxStep);
        }
    }

    /**
     * CosId's view of a Vesta segment table row: {@code nextMaxId(step)} moves max_id forward and returns it, in
     * one transaction as Vesta does. CosId hands out (maxId - step, maxId]; the row is CosId's own.
     */
    static final class TableDistributor implements IdSegmentDistributor {

        private final DataSource dataSource;
        private final String tag;
        private final long step;
        private final String update;
        private final String select;
        final LongAdder callerLoads = new LongAdder();

        TableDistributor(DataSource dataSource, String table, String tag, long step) {
            this.dataSource = dataSource;
            this.tag = tag;
            this.step = step;
            this.update = "UPDATE " + table + " SET max_id = max_id + ?, update_time = CURRENT_TIMESTAMP WHERE biz_tag = ?";
            this.select = "SELECT max_id FROM " + table + " WHERE biz_tag = ?";
        }

        @Override
        public String getNamespace() {
            return "vesta-bench";
        }

        @Override
        public String getName() {
            return tag;
        }

        @Override
        public long getStep() {
            return step;
        }

        @Override
        public long nextMaxId(long step) {
            if (RoundTripCountingDataSource.isCaller()) {
                callerLoads.increment();
            }
            try (Connection connection = dataSource.getConnection()) {
                connection.setAutoCommit(false);
                try {
                    try (PreparedStatement statement = connection.prepareStatement(update)) {
                        statement.setLong(1, step);
                        statement.setString(2, tag);
                        if (statement.executeUpdate() != 1) {
                            throw new IllegalStateException("no row for " + tag);
                        }
                    }
                    long maxId;
                    try (PreparedStatement statement = connection.prepareStatement(select)) {
                        statement.setString(1, tag);
                        try (ResultSet row = statement.executeQuery()) {
                            row.next();
                            maxId = row.getLong(1);
                        }
                    }
                    connection.commit();
                    return maxId;
                } catch (SQLException | RuntimeException e) {
                    connection.rollback();
                    throw e;
                } finally {
                    connection.setAutoCommit(true);
                }
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
        }
    }

    @Benchmark
    @Threads(1)
    public long vesta1Thread(VestaState state, DatabaseBenchmarkState.Issued issued) {
        issued.ids++;
        return state.service.nextId(TAG);
    }

    @Benchmark
    @Threads(2)
    public long vesta2Threads(VestaState state, DatabaseBenchmarkState.Issued issued) {
        issued.ids++;
        return state.service.nextId(TAG);
    }

    @Benchmark
    @Threads(1)
    public long cosid1Thread(CosIdState state, DatabaseBenchmarkState.Issued issued) {
        issued.ids++;
        return state.chain.generate();
    }

    @Benchmark
    @Threads(2)
    public long cosid2Threads(CosIdState state, DatabaseBenchmarkState.Issued issued) {
        issued.ids++;
        return state.chain.generate();
    }

    /** CosId looked up by tag name on every call, the shape of Vesta's {@code nextId(bizTag)}. */
    @Benchmark
    @Threads(1)
    public long cosidByName1Thread(CosIdState state, DatabaseBenchmarkState.Issued issued) {
        issued.ids++;
        return state.chains.get(TAG).generate();
    }

    @Benchmark
    @Threads(2)
    public long cosidByName2Threads(CosIdState state, DatabaseBenchmarkState.Issued issued) {
        issued.ids++;
        return state.chains.get(TAG).generate();
    }
}
