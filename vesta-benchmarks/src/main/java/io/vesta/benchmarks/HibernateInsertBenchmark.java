package io.vesta.benchmarks;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.vesta.EmbeddedIdService;
import io.vesta.VestaId;
import io.vesta.hibernate.VestaIdGenerator;
import jakarta.persistence.Entity;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.SequenceGenerator;
import jakarta.persistence.Table;
import org.hibernate.Session;
import org.hibernate.SessionFactory;
import org.hibernate.boot.MetadataSources;
import org.hibernate.boot.registry.StandardServiceRegistry;
import org.hibernate.boot.registry.StandardServiceRegistryBuilder;
import org.hibernate.cfg.AvailableSettings;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.function.IntFunction;

/**
 * Hibernate inserting entities into PostgreSQL with JDBC batching on ({@code hibernate.jdbc.batch_size=50},
 * {@code order_inserts}), three ways to get the identifier, in the same run and on the same pool:
 * <ul>
 * <li>{@code @VestaId}: the ID is made in the JVM before the insert, so the inserts are batched;</li>
 * <li>{@code IDENTITY}: the database makes it during the insert, so Hibernate sends one row per statement;</li>
 * <li>{@code SEQUENCE}, pooled with an allocation of 50: one {@code nextval} per 50 IDs, inserts batched.</li>
 * </ul>
 * Each round inserts {@code rows} entities per strategy (transactions of 10,000, the session flushed and cleared
 * every 1,000), strategies in a rotated order so that none always runs first; rows/s is the median of the rounds,
 * after one warm-up round of 10,000 rows each. A bounded harness, not JMH: one measurement is 100,000 real inserts.
 * <pre>
 * java -cp vesta-benchmarks/target/benchmarks.jar io.vesta.benchmarks.HibernateInsertBenchmark [jdbc-url] [rows] [rounds]
 * </pre>
 * The URL defaults to {@code VESTA_TEST_POSTGRES_URL}, then {@code jdbc:postgresql://127.0.0.1:5432/test?user=postgres};
 * rows to 100,000 and rounds to 3. Everything happens in a schema of its own, dropped at the end.
 */
public final class HibernateInsertBenchmark {

    static final int BATCH_SIZE = 50;
    static final int FLUSH_EVERY = 1_000;
    static final int COMMIT_EVERY = 10_000;
    static final int WARM_UP_ROWS = 10_000;

    private HibernateInsertBenchmark() {
    }

    public static void main(String[] args) throws SQLException {
        String url = args.length > 0 ? args[0] : System.getenv().getOrDefault("VESTA_TEST_POSTGRES_URL",
                "jdbc:postgresql://127.0.0.1:5432/test?user=postgres");
        int rows = args.length > 1 ? Integer.parseInt(args[1]) : 100_000;
        int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 3;
        if (rows < 1 || rows > 10_000_000 || rounds < 1 || rounds > 20) {
            throw new IllegalArgumentException("rows must be in [1, 10000000] and rounds in [1, 20]");
        }
        String schema = "vesta_bench_" + UUID.randomUUID().toString().replace("-", "").substring(0, 10);

        HikariConfig pool = new HikariConfig();
        pool.setJdbcUrl(url);
        pool.setMaximumPoolSize(2);
        pool.setConnectionTimeout(5_000);
        try (HikariDataSource dataSource = new HikariDataSource(pool);
                EmbeddedIdService ids = EmbeddedIdService.builder().machineId(1).build()) {
            execute(dataSource, "create schema " + schema);
            try (SessionFactory sessions = sessionFactory(dataSource, ids, schema)) {
                Map<String, IntFunction<Object>> strategies = new LinkedHashMap<>();
                strategies.put("@VestaId", VestaRow::new);
                strategies.put("IDENTITY", IdentityRow::new);
                strategies.put("SEQUENCE (pooled, 50)", SequenceRow::new);
                Map<String, String> tables = Map.of("@VestaId", "vesta_row", "IDENTITY", "identity_row",
                        "SEQUENCE (pooled, 50)", "sequence_row");

                for (String strategy : strategies.keySet()) {
                    insert(sessions, strategies.get(strategy), WARM_UP_ROWS);
                    execute(dataSource, "truncate table " + schema + "." + tables.get(strategy));
                }
                Map<String, double[]> rowsPerSecond = new LinkedHashMap<>();
                strategies.keySet().forEach(s -> rowsPerSecond.put(s, new double[rounds]));
                List<String> order = new ArrayList<>(strategies.keySet());
                for (int round = 0; round < rounds; round++) {
                    for (String strategy : order) {
                        long nanos = insert(sessions, strategies.get(strategy), rows);
                        rowsPerSecond.get(strategy)[round] = rows / (nanos / 1e9);
                        System.err.printf(Locale.ROOT, "round %d %-22s %,12.0f rows/s%n", round + 1, strategy,
                                rowsPerSecond.get(strategy)[round]);
                        execute(dataSource, "truncate table " + schema + "." + tables.get(strategy));
                    }
                    order.add(order.remove(0));
                }
                print(rows, rounds, rowsPerSecond);
            } finally {
                execute(dataSource, "drop schema if exists " + schema + " cascade");
            }
        }
    }

    private static SessionFactory sessionFactory(HikariDataSource dataSource, EmbeddedIdService ids, String schema) {
        StandardServiceRegistry registry = new StandardServiceRegistryBuilder()
                .applySetting(AvailableSettings.JAKARTA_NON_JTA_DATASOURCE, dataSource)
                .applySetting(AvailableSettings.DEFAULT_SCHEMA, schema)
                .applySetting(AvailableSettings.HBM2DDL_AUTO, "create")
                .applySetting(AvailableSettings.STATEMENT_BATCH_SIZE, BATCH_SIZE)
                .applySetting(AvailableSettings.ORDER_INSERTS, true)
                // Plain Hibernate, no Spring: the IdService @VestaId fills identifiers from.
                .applySetting(VestaIdGenerator.ID_SERVICE, ids)
                .build();
        return new MetadataSources(registry).addAnnotatedClass(VestaRow.class).addAnnotatedClass(IdentityRow.class)
                .addAnnotatedClass(SequenceRow.class).buildMetadata().buildSessionFactory();
    }

    /** Inserts {@code rows} new entities; returns the nanoseconds it took. */
    private static long insert(SessionFactory sessions, IntFunction<Object> entity, int rows) {
        long start = System.nanoTime();
        for (int committed = 0; committed < rows; committed += COMMIT_EVERY) {
            int end = Math.min(rows, committed + COMMIT_EVERY);
            try (Session session = sessions.openSession()) {
                session.beginTransaction();
                for (int i = committed; i < end; i++) {
                    session.persist(entity.apply(i));
                    if ((i + 1) % FLUSH_EVERY == 0) {
                        session.flush();
                        session.clear();
                    }
                }
                session.getTransaction().commit();
            }
        }
        return System.nanoTime() - start;
    }

    private static void print(int rows, int rounds, Map<String, double[]> rowsPerSecond) {
        double vesta = median(rowsPerSecond.get("@VestaId"));
        double identity = median(rowsPerSecond.get("IDENTITY"));
        double sequence = median(rowsPerSecond.get("SEQUENCE (pooled, 50)"));
        System.out.printf(Locale.ROOT, "%n%,d Hibernate inserts per strategy into PostgreSQL, batch size %d, median of %d rounds%n%n",
                rows, BATCH_SIZE, rounds);
        System.out.println("| identifier | rows/s | vs IDENTITY | vs SEQUENCE |");
        System.out.println("|---|---:|---:|---:|");
        rowsPerSecond.forEach((strategy, values) -> {
            double median = median(values);
            System.out.printf(Locale.ROOT, "| %s | %,.0f | %.2fx | %.2fx |%n", strategy, median, median / identity,
                    median / sequence);
        });
        System.out.printf(Locale.ROOT, "%nTargets: @VestaId at least 3x IDENTITY (%.2fx: %s), within 10%% of SEQUENCE (%.2fx: %s)%n",
                vesta / identity, vesta / identity >= 3 ? "met" : "NOT met", vesta / sequence,
                vesta / sequence >= 0.9 ? "met" : "NOT met");
    }

    private static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int middle = sorted.length / 2;
        return sorted.length % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
    }

    private static void execute(HikariDataSource dataSource, String sql) throws SQLException {
        try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
            statement.execute(sql);
        }
    }

    /** The same row three times over; only the identifier differs. */
    @Entity
    @Table(name = "vesta_row")
    public static class VestaRow {
        @Id
        @VestaId
        Long id;
        String item;
        int quantity;
        Instant placedAt;

        protected VestaRow() {
        }

        VestaRow(int i) {
            item = "item-" + i;
            quantity = i % 10;
            placedAt = Instant.now();
        }
    }

    @Entity
    @Table(name = "identity_row")
    public static class IdentityRow {
        @Id
        @GeneratedValue(strategy = GenerationType.IDENTITY)
        Long id;
        String item;
        int quantity;
        Instant placedAt;

        protected IdentityRow() {
        }

        IdentityRow(int i) {
            item = "item-" + i;
            quantity = i % 10;
            placedAt = Instant.now();
        }
    }

    @Entity
    @Table(name = "sequence_row")
    public static class SequenceRow {
        @Id
        @GeneratedValue(strategy = GenerationType.SEQUENCE, generator = "sequence_row_ids")
        @SequenceGenerator(name = "sequence_row_ids", sequenceName = "sequence_row_seq", allocationSize = 50)
        Long id;
        String item;
        int quantity;
        Instant placedAt;

        protected SequenceRow() {
        }

        SequenceRow(int i) {
            item = "item-" + i;
            quantity = i % 10;
            placedAt = Instant.now();
        }
    }
}
