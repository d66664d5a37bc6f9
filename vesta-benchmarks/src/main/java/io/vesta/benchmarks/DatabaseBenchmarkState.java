package io.vesta.benchmarks;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.runner.IterationType;

import javax.sql.DataSource;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * What the database-backed benchmarks share: a pool on PostgreSQL whose round trips are counted, and the
 * bookkeeping of the measurement iterations (IDs issued, round trips, round trips made by callers and the time
 * callers spent in them), appended per run to {@value #RESULTS_DEFAULT} for {@link SegmentReport}.
 *
 * <p>The PostgreSQL URL comes from {@code VESTA_BENCH_POSTGRES_URL}, else {@code VESTA_TEST_POSTGRES_URL}, else
 * the local default {@value #DEFAULT_URL}.
 */
public abstract class DatabaseBenchmarkState {

    static final String DEFAULT_URL = "jdbc:postgresql://127.0.0.1:5432/test?user=postgres";
    static final String RESULTS_DEFAULT = "segment-db.csv";
    static final String RESULTS_HEADER = "benchmark,threads,maxStep,ids,roundTrips,callerRoundTrips,callerNanos,callerWaits";

    /** The per-thread ID counters of this fork: a fork runs one benchmark, so this holds its threads only. */
    static final ConcurrentLinkedQueue<Issued> ISSUED = new ConcurrentLinkedQueue<>();

    /** IDs issued by one benchmark thread: a plain field, read by JMH's iteration tear-down after the threads stop. */
    @State(Scope.Thread)
    public static class Issued {
        long ids;

        @Setup(Level.Trial)
        public void register() {
            ISSUED.add(this);
        }
    }

    HikariDataSource pool;
    RoundTripCountingDataSource counter;
    DataSource dataSource;
    final String table = "vesta_bench_" + UUID.randomUUID().toString().replace("-", "").substring(0, 10);

    private long idsMark;
    private long roundTripsMark;
    private long callerRoundTripsMark;
    private long callerNanosMark;
    private long callerWaitsMark;

    long ids;
    long roundTrips;
    long callerRoundTrips;
    long callerNanos;
    long callerWaits;

    void open() {
        String url = firstSet(System.getenv("VESTA_BENCH_POSTGRES_URL"), System.getenv("VESTA_TEST_POSTGRES_URL"), DEFAULT_URL);
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url);
        config.setPoolName("vesta-bench");
        config.setMaximumPoolSize(8);
        config.setMinimumIdle(8);
        config.setConnectionTimeout(10_000);
        pool = new HikariDataSource(config);
        counter = RoundTripCountingDataSource.over(pool);
        dataSource = counter.dataSource();
    }

    void execute(String sql) {
        try (Connection connection = pool.getConnection(); Statement statement = connection.createStatement()) {
            statement.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException(sql + ": " + e.getMessage(), e);
        }
    }

    void startIteration() {
        idsMark = issued();
        roundTripsMark = counter.roundTrips.sum();
        callerRoundTripsMark = counter.callerRoundTrips.sum();
        callerNanosMark = counter.callerNanos.sum();
        callerWaitsMark = callerWaitsSoFar();
    }

    void endIteration(IterationParams iteration) {
        if (iteration.getType() != IterationType.MEASUREMENT) {
            return;
        }
        ids += issued() - idsMark;
        roundTrips += counter.roundTrips.sum() - roundTripsMark;
        callerRoundTrips += counter.callerRoundTrips.sum() - callerRoundTripsMark;
        callerNanos += counter.callerNanos.sum() - callerNanosMark;
        callerWaits += callerWaitsSoFar() - callerWaitsMark;
    }

    /**
     * Calls so far that waited for the database, however they waited: by default the round trips callers
     * made themselves; a generator whose callers can also wait for a background load counts those too.
     */
    long callerWaitsSoFar() {
        return counter.callerRoundTrips.sum();
    }

    /** Appends the measurement iterations' totals to the results file and closes the pool. */
    void finish(BenchmarkParams benchmark, int maxStep) {
        String method = benchmark.getBenchmark().substring(benchmark.getBenchmark().lastIndexOf('.') + 1);
        String clazz = benchmark.getBenchmark().substring(0, benchmark.getBenchmark().lastIndexOf('.'));
        String name = clazz.substring(clazz.lastIndexOf('.') + 1) + "." + method;
        String line = String.format(Locale.ROOT, "%s,%d,%d,%d,%d,%d,%d,%d", name, benchmark.getThreads(), maxStep, ids,
                roundTrips, callerRoundTrips, callerNanos, callerWaits);
        System.out.printf(Locale.ROOT, "%n%s: %,d IDs, %,d round trips (%.2f per million IDs), %,d by callers (%.3f ms), "
                        + "%,d calls waited for the database; slowest background DB call %.3f ms%n",
                name, ids, roundTrips, ids == 0 ? Double.NaN : roundTrips * 1e6 / ids, callerRoundTrips, callerNanos / 1e6,
                callerWaits, counter.slowestBackgroundNanos.get() / 1e6);
        Path results = Path.of(System.getProperty("vesta.bench.segment-results", RESULTS_DEFAULT));
        try {
            if (!Files.exists(results)) {
                Files.writeString(results, RESULTS_HEADER + "\n", StandardCharsets.UTF_8);
            }
            Files.writeString(results, line + "\n", StandardCharsets.UTF_8, StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            pool.close();
        }
    }

    private static long issued() {
        long sum = 0;
        for (Issued issued : ISSUED) {
            sum += issued.ids;
        }
        return sum;
    }

    private static String firstSet(String... values) {
        for (String value : values) {
            if (value != null && !value.isBlank()) {
                return value;
            }
        }
        throw new IllegalStateException("no value");
    }
}
