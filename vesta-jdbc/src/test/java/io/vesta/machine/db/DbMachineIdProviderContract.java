package io.vesta.machine.db;

import io.vesta.machine.MachineIdRange;
import io.vesta.machine.MachineIdLeases;
import io.vesta.machine.MachineIdLeaseInfo;
import io.vesta.machine.LeaseChangeRefusedException;
import io.vesta.machine.MachineIdUnavailableException;
import io.vesta.EmbeddedIdService;
import io.vesta.IdType;
import io.vesta.test.FaultyDataSource;
import io.vesta.test.ManualTimeSource;
import io.vesta.time.TimeSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

/**
 * What {@link DbMachineIdProvider} promises, run against each database by a subclass. Every test works in a
 * table of its own and drops it afterwards, so runs never collide.
 */
abstract class DbMachineIdProviderContract {

    static final Instant T0 = Instant.parse("2026-06-01T12:00:00Z");

    /** The database's JDBC URL; the subclass skips (with the variable's name) when it is not configured. */
    abstract String url();

    /** SQL giving the current session's ID on the server. */
    abstract String sessionIdQuery();

    /** SQL that kills the server session with the ID bound as its only parameter. */
    abstract String killSessionSql();

    // One line per lease taken is right for a node, too much for hundreds of them in a test. Held in a field:
    // java.util.logging forgets the level of a logger nobody references.
    private static final java.util.logging.Logger QUIET = java.util.logging.Logger.getLogger("io.vesta.machine");

    static {
        QUIET.setLevel(java.util.logging.Level.WARNING);
    }

    String table;
    private final List<AutoCloseable> toClose = new ArrayList<>();
    private final List<FaultyDataSource> dataSources = new ArrayList<>();

    @BeforeEach
    void createTable() {
        table = "vesta_machine_" + Long.toHexString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE);
        provider(pooled(1), "schema", TimeSource.system()).initializeSchema();
    }

    @AfterEach
    void dropTable() throws Exception {
        for (AutoCloseable closeable : toClose) {
            closeable.close();
        }
        for (FaultyDataSource dataSource : dataSources) {
            dataSource.close();
        }
        try (Connection connection = DriverManager.getConnection(url()); Statement statement = connection.createStatement()) {
            statement.execute("DROP TABLE IF EXISTS " + table);
        }
    }

    /**
     * Nodes that start together on a database without the table all create it: each node's create must succeed
     * when another node's create of the same table wins the race (PostgreSQL's CREATE TABLE IF NOT EXISTS is not
     * atomic: the loser can fail on the catalog's unique index). Fresh tables, so every round is a first start.
     */
    @Test
    void nodesCreatingTheTableAtOnceAllStart() throws Exception {
        int nodes = 6;
        ExecutorService pool = Executors.newFixedThreadPool(nodes);
        // One pool per node for all rounds: a pool per round would hold 90 connections, near PostgreSQL's 100.
        List<FaultyDataSource> dataSources = new ArrayList<>();
        for (int node = 0; node < nodes; node++) {
            dataSources.add(pooled(1));
        }
        try {
            for (int round = 0; round < 15; round++) {
                String fresh = table + "_r" + round;
                java.util.concurrent.CyclicBarrier together = new java.util.concurrent.CyclicBarrier(nodes);
                List<Future<?>> starts = new ArrayList<>();
                for (int node = 0; node < nodes; node++) {
                    DbMachineIdProvider provider = DbMachineIdProvider.builder(dataSources.get(node)).table(fresh)
                            .owner("node-" + node).build();
                    toClose.add(provider);
                    starts.add(pool.submit(() -> {
                        together.await(10, TimeUnit.SECONDS);
                        provider.initializeSchema();
                        return null;
                    }));
                }
                try {
                    for (Future<?> start : starts) {
                        start.get(30, TimeUnit.SECONDS);
                    }
                } finally {
                    try (Connection connection = DriverManager.getConnection(url());
                            Statement statement = connection.createStatement()) {
                        statement.execute("DROP TABLE IF EXISTS " + fresh);
                    }
                }
            }
        } finally {
            pool.shutdownNow();
        }
    }

    FaultyDataSource pooled(int maxOpen) {
        FaultyDataSource dataSource = FaultyDataSource.pooled(url(), maxOpen);
        dataSources.add(dataSource);
        return dataSource;
    }

    FaultyDataSource single() {
        FaultyDataSource dataSource = FaultyDataSource.single(url());
        dataSources.add(dataSource);
        return dataSource;
    }

    DbMachineIdProvider.Builder builder(FaultyDataSource dataSource, String owner, TimeSource clock) {
        return DbMachineIdProvider.builder(dataSource).table(table).owner(owner).timeSource(clock)
                // Longer than any test runs: the tests drive heartbeats by hand unless they say otherwise.
                .lease(Duration.ofSeconds(60)).heartbeat(Duration.ofSeconds(20));
    }

    DbMachineIdProvider provider(FaultyDataSource dataSource, String owner, TimeSource clock) {
        DbMachineIdProvider provider = builder(dataSource, owner, clock).build();
        toClose.add(provider);
        return provider;
    }

    EmbeddedIdService service(DbMachineIdProvider provider, TimeSource clock) {
        EmbeddedIdService service = EmbeddedIdService.builder().type(IdType.MIN_GRANULARITY)
                .machineIdProvider(provider).timeSource(clock).build();
        toClose.add(service);
        return service;
    }

    /** {@link #service} with a high-water mark in {@code directory}, as a node with a time store runs. */
    EmbeddedIdService storedService(DbMachineIdProvider provider, TimeSource clock, Path directory) {
        EmbeddedIdService service = EmbeddedIdService.builder().type(IdType.MIN_GRANULARITY).machineIdProvider(provider)
                .timeSource(clock).timestampStoreDirectory(directory).build();
        toClose.add(service);
        return service;
    }

    long rowValue(long machineId, String column) throws SQLException {
        try (Connection connection = DriverManager.getConnection(url());
                PreparedStatement select = connection.prepareStatement("SELECT " + column + " FROM " + table + " WHERE machine_id = ?")) {
            select.setLong(1, machineId);
            try (ResultSet rs = select.executeQuery()) {
                assertThat(rs.next()).as("row of machine ID %d", machineId).isTrue();
                return rs.getLong(1);
            }
        }
    }

    @Test
    void twoHundredConcurrentAcquirersGetDistinctIds() throws Exception {
        int acquirers = 200;
        FaultyDataSource dataSource = pooled(20);
        List<DbMachineIdProvider> providers = new ArrayList<>();
        for (int i = 0; i < acquirers; i++) {
            providers.add(provider(dataSource, "node-" + i, TimeSource.system()));
        }
        CountDownLatch start = new CountDownLatch(1);
        ExecutorService threads = Executors.newFixedThreadPool(acquirers);
        try {
            List<Future<Long>> ids = new ArrayList<>();
            for (DbMachineIdProvider provider : providers) {
                ids.add(threads.submit(() -> {
                    start.await();
                    return provider.acquire(MachineIdRange.EMBEDDED);
                }));
            }
            start.countDown();
            Set<Long> distinct = ConcurrentHashMap.newKeySet();
            for (Future<Long> id : ids) {
                distinct.add(id.get(60, TimeUnit.SECONDS));
            }
            // Each took the lowest ID free at its moment, so together they fill the bottom of the range.
            assertThat(distinct).hasSize(acquirers)
                    .containsExactlyInAnyOrderElementsOf(LongStream.range(0, acquirers).boxed().toList());
            List<Future<?>> closed = new ArrayList<>();
            for (DbMachineIdProvider provider : providers) {
                closed.add(threads.submit(provider::close));
            }
            for (Future<?> close : closed) {
                close.get(60, TimeUnit.SECONDS);
            }
        } finally {
            threads.shutdownNow();
        }
    }

    @Test
    void aRestartGetsTheSameIdBackAfterACleanCloseAndAfterACrash() {
        ManualTimeSource clock = new ManualTimeSource(T0);
        FaultyDataSource dataSource = pooled(4);
        DbMachineIdProvider first = provider(dataSource, "node-a", clock);
        EmbeddedIdService a = service(first, clock);
        long other = provider(dataSource, "node-b", clock).acquire(MachineIdRange.EMBEDDED);
        long lastBeforeClose = a.genId();
        a.close();

        clock.advance(Duration.ofMillis(5));
        DbMachineIdProvider restarted = provider(dataSource, "node-a", clock);
        EmbeddedIdService again = service(restarted, clock);

        assertThat(again.machineId()).isEqualTo(a.machineId()).isNotEqualTo(other);
        // A clean close writes the exact mark: the restart need not wait for the old lease to end.
        assertThat(restarted.notBefore()).hasValue(T0.toEpochMilli() + 1);
        assertThat(again.genId()).isGreaterThan(lastBeforeClose);
        assertThat(restarted.describe()).isEqualTo("db (table " + table + ", owner 'node-a')");

        // A crash leaves the lease running: the restart gets the ID back but starts after the old lease.
        DbMachineIdProvider afterCrash = provider(dataSource, "node-a", clock);
        assertThat(afterCrash.acquire(MachineIdRange.EMBEDDED)).isEqualTo(a.machineId());
        assertThat(afterCrash.notBefore()).hasValue(clock.now().plusSeconds(60).toEpochMilli());
        // ...and the crashed holder can no longer renew: the row moved to a new generation.
        assertThat(restarted.heartbeat()).isFalse();
        assertThat(restarted.lease().lostReason()).contains("taken over by owner 'node-a'");
    }

    @Test
    void anExpiredLeaseIsTakenOverAndTheNewOwnersIdsComeAfterTheOldOwnersLast() throws SQLException {
        ManualTimeSource clockA = new ManualTimeSource(T0);
        FaultyDataSource dataSourceA = pooled(2);
        DbMachineIdProvider providerA = provider(dataSourceA, "node-a", clockA);
        EmbeddedIdService a = service(providerA, clockA);
        a.genIds(100);
        long highWater = rowValue(a.machineId(), "high_water");
        assertThat(highWater).isEqualTo(T0.plusSeconds(60).toEpochMilli());

        // Node A is cut off from the database; node B's clock runs 30 s ahead of A's, so B sees A's lease
        // expire while A, by its own clock, still holds it for another 30 s.
        dataSourceA.down(true);
        clockA.advance(Duration.ofSeconds(30));
        assertThat(providerA.heartbeat()).isTrue();
        ManualTimeSource clockB = new ManualTimeSource(T0.plusSeconds(60));
        DbMachineIdProvider providerB = provider(pooled(2), "node-b", clockB);
        EmbeddedIdService b = service(providerB, clockB);

        assertThat(b.machineId()).isEqualTo(a.machineId());
        assertThat(providerB.notBefore()).hasValue(highWater);
        assertThat(b.machineIdSource()).contains("taken over from 'node-a'");
        long lastOfA = a.genIds(100)[99];
        clockA.advance(Duration.ofMillis(29_999));
        lastOfA = Math.max(lastOfA, a.genId());
        long firstOfB = b.genId();
        assertThat(firstOfB).isGreaterThan(lastOfA);
        assertThat(b.expId(firstOfB).time()).isGreaterThan(a.expId(lastOfA).time());

        // A reaches the database again: the row is B's now, so A must never issue under it again.
        dataSourceA.down(false);
        assertThat(providerA.heartbeat()).isFalse();
        assertThatThrownBy(a::genId).isInstanceOf(MachineIdUnavailableException.class)
                .hasMessageContaining("is no longer this node's (owner 'node-a')")
                .hasMessageContaining("taken over by owner 'node-b'");
        clockA.set(clockB.now());
        assertThatThrownBy(a::genId).isInstanceOf(MachineIdUnavailableException.class);
        assertThat(providerB.heartbeat()).isTrue();
    }

    @Test
    void aFullRangeIsRefusedNamingTheTableTheRangeAndHowManyRowsHoldIt() {
        ManualTimeSource clock = new ManualTimeSource(T0);
        FaultyDataSource dataSource = pooled(2);
        MachineIdRange range = new MachineIdRange(5, 7);
        for (String owner : List.of("node-a", "node-b", "node-c")) {
            provider(dataSource, owner, clock).acquire(range);
        }

        assertThatThrownBy(() -> provider(dataSource, "node-d", clock).acquire(range))
                .isInstanceOf(MachineIdUnavailableException.class)
                .hasMessage("No machine ID is free in range 5-7 of table " + table + ": 3 rows hold a live lease on all 3 IDs"
                        + " of the range (the first lease ends at 2026-06-01T12:01:00Z). Stop a node, widen the range,"
                        + " or wait for a lease to end.");

        clock.advance(Duration.ofSeconds(60));
        assertThat(provider(dataSource, "node-d", clock).acquire(range)).isEqualTo(5);
    }

    @Test
    void theDatabaseDownDuringHeartbeatsStopsIssuingOnceTheLeaseRunsOutAndRenewalRecovers() {
        ManualTimeSource clock = new ManualTimeSource(T0);
        FaultyDataSource dataSource = pooled(2);
        DbMachineIdProvider provider = provider(dataSource, "node-a", clock);
        EmbeddedIdService service = service(provider, clock);
        service.genId();

        dataSource.down(true);
        clock.advance(Duration.ofSeconds(20));
        assertThat(provider.heartbeat()).as("still within the lease").isTrue();
        service.genId();
        clock.advance(Duration.ofSeconds(40));
        assertThat(provider.heartbeat()).isFalse();
        assertThatThrownBy(service::genId).isInstanceOf(MachineIdUnavailableException.class)
                .hasMessage("Machine ID " + service.machineId() + " is not held by this node at 2026-06-01T12:01:00Z: its"
                        + " lease expired at 2026-06-01T12:01:00Z and has not been renewed. No ID is issued until the"
                        + " lease is held again.");

        dataSource.down(false);
        assertThat(provider.heartbeat()).isTrue();
        assertThat(service.genId()).isPositive();
        // Each failed attempt already counted as written, so the renewal lands a millisecond or so above.
        assertThat(service.machineIdLease().heldUntil())
                .isBetween(clock.now().plusSeconds(60).toEpochMilli(), clock.now().plusSeconds(60).plusMillis(5).toEpochMilli());
    }

    @Test
    void closeReleasesTheRowSoAnotherNodeTakesItAtOnce() throws SQLException {
        ManualTimeSource clock = new ManualTimeSource(T0);
        FaultyDataSource dataSource = pooled(2);
        EmbeddedIdService a = service(provider(dataSource, "node-a", clock), clock);
        long last = a.genId();
        a.close();
        assertThatThrownBy(a::genId).isInstanceOf(IllegalStateException.class).hasMessageContaining("was closed");
        assertThat(a.machineIdLease().lostReason()).isEqualTo("the machine-ID provider was closed");
        assertThat(rowValue(a.machineId(), "lease_expiry")).isEqualTo(T0.toEpochMilli());

        EmbeddedIdService b = service(provider(dataSource, "node-b", clock), clock);
        assertThat(b.machineId()).isEqualTo(a.machineId());
        assertThat(b.genId()).isGreaterThan(last);
    }

    @Test
    void aBrokenConnectionStopsIssuingWithinTheLeaseAndANewConnectionRecovers() throws Exception {
        FaultyDataSource dataSource = single();
        DbMachineIdProvider provider = builder(dataSource, "node-a", TimeSource.system())
                .lease(Duration.ofSeconds(1)).heartbeat(Duration.ofMillis(100)).build();
        toClose.add(provider);
        EmbeddedIdService service = service(provider, TimeSource.system());
        Thread.sleep(1_300);
        assertThat(service.genId()).as("the background heartbeat renews the lease").isPositive();

        long session;
        try (Statement statement = dataSource.physical().createStatement();
                ResultSet rs = statement.executeQuery(sessionIdQuery())) {
            rs.next();
            session = rs.getLong(1);
        }
        dataSource.down(true);
        try (Connection admin = DriverManager.getConnection(url()); PreparedStatement kill = admin.prepareStatement(killSessionSql())) {
            kill.setLong(1, session);
            kill.execute();
        }
        awaitTrue("the node stops issuing", () -> {
            try {
                service.genId();
                return false;
            } catch (MachineIdUnavailableException e) {
                return e.getMessage().contains("its lease expired");
            }
        });

        dataSource.down(false);
        awaitTrue("the node issues again", () -> {
            try {
                return service.genId() > 0;
            } catch (MachineIdUnavailableException e) {
                return false;
            }
        });
        assertThat(dataSource.opened()).isGreaterThanOrEqualTo(2);
    }

    /** The IDs that appear in both. */
    static Set<Long> repeated(long[] a, long[] b) {
        Set<Long> ofA = Arrays.stream(a).boxed().collect(Collectors.toSet());
        return Arrays.stream(b).filter(ofA::contains).boxed().collect(Collectors.toSet());
    }

    /** The takeover's UPDATE: the write that comes after a claim's read of a row another node may still renew. */
    static final java.util.function.Predicate<String> TAKEOVER = sql -> sql.startsWith("UPDATE") && sql.contains("SET owner");

    @Test
    void aRenewalCommittedBetweenATakeoversReadAndItsWriteKeepsTheRowWithItsHolderAndNoIdRepeats() throws SQLException {
        ManualTimeSource clockA = new ManualTimeSource(T0);
        DbMachineIdProvider providerA = provider(pooled(2), "node-a", clockA);
        EmbeddedIdService a = service(providerA, clockA);
        a.genId();
        // A falls behind on heartbeats (a GC pause): 50 s without one, its lease (until T0 + 60 s) still held.
        clockA.advance(Duration.ofSeconds(50));
        // B's clock is 10 s ahead: B finds A's lease over and reads the row; before B writes, A's late heartbeat
        // commits and pushes lease and high water to T0 + 110 s.
        ManualTimeSource clockB = new ManualTimeSource(T0.plusSeconds(60));
        FaultyDataSource dataSourceB = pooled(2);
        DbMachineIdProvider providerB = provider(dataSourceB, "node-b", clockB);
        AtomicReference<Boolean> renewedInBetween = new AtomicReference<>();
        dataSourceB.beforeStatement(TAKEOVER, sql -> renewedInBetween.set(providerA.heartbeat())).times(1);
        EmbeddedIdService b = service(providerB, clockB);
        assertThat(renewedInBetween.get()).as("A's heartbeat ran between B's read and B's write, and committed").isTrue();

        // Both issue at the same instant: inside A's renewed lease, and after the high water B read.
        Instant same = T0.plusSeconds(60).plusMillis(1);
        clockA.set(same);
        clockB.set(same);
        long[] idsOfA = a.genIds(1000);
        long[] idsOfB = b.genIds(1000);

        Set<Long> repeated = repeated(idsOfA, idsOfB);
        assertThat(repeated).as("%d of B's first 1000 IDs (machine ID %d) repeat A's (machine ID %d)",
                repeated.size(), b.machineId(), a.machineId()).isEmpty();
        // The renewal won: B's takeover matched no row, so B went on to the next free ID.
        assertThat(b.machineId()).isNotEqualTo(a.machineId());
        assertThat(b.machineIdSource()).doesNotContain("taken over");
        assertThat(rowValue(a.machineId(), "generation")).isEqualTo(1);
        assertThat(rowValue(a.machineId(), "high_water")).isEqualTo(T0.plusSeconds(110).toEpochMilli());
        assertThat(providerA.heartbeat()).as("A still holds its row").isTrue();
        assertThat(a.genId()).isPositive();
    }

    @Test
    void aRestartThatReadsItsRowJustBeforeThePreviousRunRenewsStartsAfterTheRenewedHighWater() throws SQLException {
        ManualTimeSource clockA = new ManualTimeSource(T0);
        DbMachineIdProvider providerA = provider(pooled(2), "node-a", clockA);
        EmbeddedIdService a = service(providerA, clockA);
        a.genId();
        clockA.advance(Duration.ofSeconds(10));
        // node-a starts again while its previous run still lives (a replacement started before the old process
        // died): the restart reads its row, then the old run's heartbeat commits a lease until T0 + 70 s.
        ManualTimeSource clockR = new ManualTimeSource(T0.plusSeconds(68));
        FaultyDataSource dataSourceR = pooled(2);
        DbMachineIdProvider restarted = provider(dataSourceR, "node-a", clockR);
        AtomicReference<Boolean> renewedInBetween = new AtomicReference<>();
        dataSourceR.beforeStatement(TAKEOVER, sql -> renewedInBetween.set(providerA.heartbeat())).times(1);
        EmbeddedIdService r = service(restarted, clockR);
        assertThat(renewedInBetween.get()).as("the old run's heartbeat committed between the restart's read and write").isTrue();

        clockA.set(T0.plusSeconds(68));
        long[] idsOfOldRun = a.genIds(1000);
        long[] idsOfRestart = r.genIds(1000);

        Set<Long> repeated = repeated(idsOfOldRun, idsOfRestart);
        assertThat(repeated).as("%d of the restart's first 1000 IDs repeat the old run's", repeated.size()).isEmpty();
        // The restart read its row again and took it over with the high water committed at that moment.
        assertThat(r.machineId()).isEqualTo(a.machineId());
        assertThat(restarted.notBefore()).hasValue(T0.plusSeconds(70).toEpochMilli());
        assertThat(providerA.heartbeat()).isFalse();
        assertThat(providerA.lease().lostReason()).contains("taken over by owner 'node-a'");
    }

    /**
     * A node that crashed and is started again under its owner name gets its row back with the lease its last
     * heartbeat committed: it may have issued IDs up to that high water, so the restart issues nothing before it.
     * The clock has not moved; the refusal says so, names the reserved time, where the mark came from and when
     * issuing resumes, and the restart carries on there without repeating an ID.
     */
    @Test
    void aCrashRestartWithinTheLeaseIsRefusedForTheReservedTimeNotAsAClockStepBack(@TempDir Path timeStore) {
        ManualTimeSource clock = new ManualTimeSource(T0);
        DbMachineIdProvider crashed = provider(pooled(2), "node-a", clock);
        EmbeddedIdService a = storedService(crashed, clock, timeStore);
        long[] before = a.genIds(100);
        clock.advance(Duration.ofSeconds(10));
        assertThat(crashed.heartbeat()).isTrue(); // the row's high water: T0 + 70 s
        long last = a.genIds(100)[99];
        // A crash: no close(), so the row keeps the lease and the store its mark; the operating system drops the
        // dead process's lock on the store.
        a.timestampStore().close();

        clock.advance(Duration.ofSeconds(5));
        DbMachineIdProvider restarted = provider(pooled(2), "node-a", clock);
        EmbeddedIdService r = storedService(restarted, clock, timeStore);

        assertThat(r.machineId()).isEqualTo(a.machineId());
        assertThatThrownBy(r::genId).isInstanceOf(IllegalStateException.class).satisfies(e -> assertThat(e.getMessage())
                .startsWith("Not issuing yet: the clock has not reached the time reserved before this generator started."
                        + " It reads 2026-06-01T12:00:15Z, 55000 ms before 2026-06-01T12:01:10Z, up to which the previous"
                        + " holder of machine ID " + a.machineId() + " (this node's previous run, or another node) may have"
                        + " issued IDs: the high-water mark of its lease, read from db (table " + table + ", owner 'node-a').")
                .contains("issuing resumes at 2026-06-01T12:01:10Z, in 55000 ms")
                .doesNotContain("Clock moved backwards"));

        clock.set(T0.plusSeconds(70));
        long first = r.genId();
        assertThat(first).isGreaterThan(last).isGreaterThan(before[99]);
        assertThat(r.transTime(r.expId(first).time())).isEqualTo(T0.plusSeconds(70));
    }

    @Test
    void aReleaseRightAfterATakeoverKeepsTheHighWaterItTookOver() throws SQLException {
        ManualTimeSource clockA = new ManualTimeSource(T0);
        DbMachineIdProvider providerA = provider(pooled(2), "node-a", clockA);
        EmbeddedIdService a = service(providerA, clockA);
        a.genId();
        // A restart of node-a takes the row over while the old run still holds its lease until T0 + 60 s, so
        // it may issue only after that; it is closed at T0 + 1 s, before it issued anything.
        ManualTimeSource clockR = new ManualTimeSource(T0.plusSeconds(1));
        DbMachineIdProvider restarted = provider(pooled(2), "node-a", clockR);
        assertThat(restarted.acquire(MachineIdRange.EMBEDDED)).isEqualTo(a.machineId());
        assertThat(restarted.notBefore()).hasValue(T0.plusSeconds(60).toEpochMilli());
        restarted.close();
        // Node C takes the released row at T0 + 59 s, while the old run, which has not yet noticed it lost the
        // row, still issues within its lease.
        ManualTimeSource clockC = new ManualTimeSource(T0.plusSeconds(59));
        DbMachineIdProvider providerC = provider(pooled(2), "node-c", clockC);
        EmbeddedIdService c = service(providerC, clockC);
        clockA.set(T0.plusSeconds(59));
        long[] idsOfA = a.genIds(1000);
        long[] idsOfC = c.genIds(1000);

        assertThat(c.machineId()).isEqualTo(a.machineId());
        Set<Long> repeated = repeated(idsOfA, idsOfC);
        assertThat(repeated).as("%d of C's first 1000 IDs repeat A's", repeated.size()).isEmpty();
        assertThat(providerC.notBefore()).hasValue(T0.plusSeconds(60).toEpochMilli());
    }

    @Test
    void closeReturnsInTimeAndRevokesTheLeaseWhileAHeartbeatIsStuckGettingAConnection() throws Exception {
        closeWhileAHeartbeatIsStuck(FaultyDataSource.StallPoint.CONNECTION);
    }

    @Test
    void closeReturnsInTimeAndRevokesTheLeaseWhileAHeartbeatIsStuckInAStatement() throws Exception {
        closeWhileAHeartbeatIsStuck(FaultyDataSource.StallPoint.STATEMENT);
    }

    /** The bound close() documents for a one-second lease: the query timeout (1 s) plus one second. */
    static final Duration CLOSE_BOUND_OF_A_ONE_SECOND_LEASE = Duration.ofSeconds(2);
    /** Room for the test's own threads to be scheduled on a busy machine. */
    static final Duration SCHEDULING_SLACK = Duration.ofMillis(750);

    private void closeWhileAHeartbeatIsStuck(FaultyDataSource.StallPoint point) throws Exception {
        ManualTimeSource clock = new ManualTimeSource(T0);
        FaultyDataSource dataSource = pooled(3);
        DbMachineIdProvider provider = builder(dataSource, "node-a", clock)
                .lease(Duration.ofSeconds(1)).heartbeat(Duration.ofMillis(100)).build();
        toClose.add(provider);
        assertThat(provider.closeTimeout()).isEqualTo(CLOSE_BOUND_OF_A_ONE_SECOND_LEASE);
        EmbeddedIdService service = service(provider, clock);
        service.genId();
        ExecutorService threads = Executors.newFixedThreadPool(2);
        FaultyDataSource.Stall stall = dataSource.stall(point);
        try {
            Future<Boolean> stuck = threads.submit(provider::heartbeat);
            assertThat(stall.awaitBlocked(Duration.ofSeconds(10))).as("a heartbeat hangs in the database").isTrue();

            long started = System.nanoTime();
            Future<?> closing = threads.submit(provider::close);
            try {
                closing.get(CLOSE_BOUND_OF_A_ONE_SECOND_LEASE.plusSeconds(3).toMillis(), TimeUnit.MILLISECONDS);
            } catch (TimeoutException e) {
                fail("close() had not returned " + CLOSE_BOUND_OF_A_ONE_SECOND_LEASE.plusSeconds(3).toMillis()
                        + " ms after it was called: it waits for the heartbeat stuck at " + point);
            }
            Duration took = Duration.ofNanos(System.nanoTime() - started);
            assertThat(took).as("how long close() took").isLessThanOrEqualTo(CLOSE_BOUND_OF_A_ONE_SECOND_LEASE.plus(SCHEDULING_SLACK));
            assertThatThrownBy(service::genId).isInstanceOf(MachineIdUnavailableException.class)
                    .hasMessageContaining("the machine-ID provider was closed");
            assertThat(rowValue(service.machineId(), "lease_expiry")).as("not released under a heartbeat that holds the row")
                    .isGreaterThan(T0.toEpochMilli());

            // The stuck heartbeat gets through at last and its renewal commits: the lease must stay revoked.
            stall.release();
            assertThat(stuck.get(10, TimeUnit.SECONDS)).as("a heartbeat that ends after close()").isFalse();
            assertThat(provider.heartbeat()).isFalse();
            assertThat(provider.lease().isHeldAt(clock.currentTimeMillis())).isFalse();
            assertThatThrownBy(service::genId).hasMessageContaining("the machine-ID provider was closed");
        } finally {
            stall.release();
            threads.shutdownNow();
        }
    }

    @Test
    void closeReturnsInTimeWhileAcquireIsStuckAndTheRowAcquireThenClaimsIsReleased() throws Exception {
        ManualTimeSource clock = new ManualTimeSource(T0);
        FaultyDataSource dataSource = pooled(3);
        DbMachineIdProvider provider = builder(dataSource, "node-a", clock)
                .lease(Duration.ofSeconds(1)).heartbeat(Duration.ofMillis(100)).build();
        toClose.add(provider);
        ExecutorService threads = Executors.newFixedThreadPool(2);
        FaultyDataSource.Stall stall = dataSource.stall(FaultyDataSource.StallPoint.STATEMENT);
        try {
            Future<Long> acquiring = threads.submit(() -> provider.acquire(MachineIdRange.EMBEDDED));
            assertThat(stall.awaitBlocked(Duration.ofSeconds(10))).as("acquire hangs in the database").isTrue();

            long started = System.nanoTime();
            Future<?> closing = threads.submit(provider::close);
            try {
                closing.get(CLOSE_BOUND_OF_A_ONE_SECOND_LEASE.plusSeconds(3).toMillis(), TimeUnit.MILLISECONDS);
            } catch (TimeoutException e) {
                fail("close() had not returned " + CLOSE_BOUND_OF_A_ONE_SECOND_LEASE.plusSeconds(3).toMillis()
                        + " ms after it was called: it waits for the stuck acquire");
            }
            assertThat(Duration.ofNanos(System.nanoTime() - started)).as("how long close() took")
                    .isLessThanOrEqualTo(CLOSE_BOUND_OF_A_ONE_SECOND_LEASE.plus(SCHEDULING_SLACK));

            stall.release();
            assertThatThrownBy(() -> acquiring.get(10, TimeUnit.SECONDS)).hasCauseInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("was closed while it leased machine ID 0");
            assertThat(provider.lease().isHeldAt(clock.currentTimeMillis())).isFalse();
            // The row acquire claimed after close() began was given back at once.
            assertThat(rowValue(0, "lease_expiry")).isEqualTo(T0.toEpochMilli());
            assertThat(provider(pooled(1), "node-b", clock).acquire(MachineIdRange.EMBEDDED)).isZero();
        } finally {
            stall.release();
            threads.shutdownNow();
        }
    }

    @Test
    void everyStatementTheProviderRunsCarriesAQueryTimeout() {
        ManualTimeSource clock = new ManualTimeSource(T0);
        FaultyDataSource dataSource = pooled(2);
        DbMachineIdProvider first = builder(dataSource, "node-a", clock).initializeSchema(true).build();
        toClose.add(first);
        long id = first.acquire(MachineIdRange.EMBEDDED);
        assertThat(first.heartbeat()).isTrue();
        DbMachineIdProvider restarted = provider(dataSource, "node-a", clock);
        assertThat(restarted.acquire(MachineIdRange.EMBEDDED)).isEqualTo(id);
        assertThat(first.heartbeat()).as("taken over: the heartbeat reads the row to say by whom").isFalse();
        restarted.close();

        List<FaultyDataSource.Executed> executed = dataSource.executed();
        // DDL, the range SELECT, INSERT, renewal, takeover, the single-row SELECT and the release.
        assertThat(executed.stream().map(e -> e.sql().split("\\s+")[0].toUpperCase(java.util.Locale.ROOT)).distinct())
                .contains("CREATE", "SELECT", "INSERT", "UPDATE");
        assertThat(executed).hasSizeGreaterThanOrEqualTo(9)
                .allSatisfy(e -> assertThat(e.queryTimeoutSeconds()).as("query timeout of: %s", e.sql()).isPositive());
    }

    /**
     * Two hundred nodes with blocks of 1, 2, 4 and 8 race for 400 machine IDs, more than they need together: each
     * either holds a whole aligned block, every row of it under its owner and one generation, or fails and holds no
     * row at all; no two blocks share a machine ID.
     */
    @Test
    void twoHundredBlockAcquirersRacingEachGetAWholeBlockOrNone() throws Exception {
        int acquirers = 200;
        MachineIdRange range = new MachineIdRange(0, 399);
        FaultyDataSource dataSource = pooled(20);
        List<DbMachineIdProvider> providers = new ArrayList<>();
        for (int i = 0; i < acquirers; i++) {
            providers.add(provider(dataSource, "node-" + i, TimeSource.system()));
        }
        CountDownLatch start = new CountDownLatch(1);
        ExecutorService threads = Executors.newFixedThreadPool(acquirers);
        List<Future<Long>> firsts = new ArrayList<>();
        try {
            for (int i = 0; i < acquirers; i++) {
                DbMachineIdProvider provider = providers.get(i);
                int blockSize = 1 << (i % 4);
                firsts.add(threads.submit(() -> {
                    start.await();
                    try {
                        return provider.acquire(range, blockSize);
                    } catch (MachineIdUnavailableException e) {
                        return -1L;
                    }
                }));
            }
            start.countDown();
            long[] owners = new long[(int) range.size()];
            Arrays.fill(owners, -1);
            int holders = 0;
            for (int i = 0; i < acquirers; i++) {
                long first = firsts.get(i).get(60, TimeUnit.SECONDS);
                if (first < 0) {
                    continue;
                }
                holders++;
                int blockSize = 1 << (i % 4);
                assertThat(range.holdsBlock(first, blockSize)).as("block of %d from %d", blockSize, first).isTrue();
                for (long id = first; id < first + blockSize; id++) {
                    assertThat(owners[(int) id]).as("machine ID %d", id).isEqualTo(-1);
                    owners[(int) id] = i;
                }
            }
            // The rows: exactly the machine IDs some node holds, each under that node, one generation per block.
            java.util.Map<Long, String> ownerOfRow = new java.util.HashMap<>();
            java.util.Map<String, Set<Long>> generationsOfOwner = new java.util.HashMap<>();
            try (Connection connection = DriverManager.getConnection(url()); Statement select = connection.createStatement();
                    ResultSet rs = select.executeQuery("SELECT machine_id, owner, generation FROM " + table)) {
                while (rs.next()) {
                    ownerOfRow.put(rs.getLong(1), rs.getString(2));
                    generationsOfOwner.computeIfAbsent(rs.getString(2), o -> new java.util.HashSet<>()).add(rs.getLong(3));
                }
            }
            for (int id = 0; id < owners.length; id++) {
                assertThat(ownerOfRow.get((long) id)).as("owner of machine ID %d", id)
                        .isEqualTo(owners[id] < 0 ? null : "node-" + owners[id]);
            }
            assertThat(generationsOfOwner.values()).allSatisfy(generations -> assertThat(generations).hasSize(1));
            // 750 machine IDs asked for, 400 in the range: some nodes must have been refused.
            assertThat(holders).as("nodes that got a block").isBetween(1, acquirers - 1);
        } finally {
            threads.shutdownNow();
        }
    }

    @Test
    void theLeaseListShowsEveryMachineIdOfTheRangeWithItsHolder() {
        ManualTimeSource clock = new ManualTimeSource(T0);
        DbMachineIdProvider a = provider(pooled(2), "node-a", clock);
        DbMachineIdProvider b = provider(pooled(2), "node-b", clock);
        MachineIdRange range = new MachineIdRange(10, 17);
        assertThat(a.acquire(range, 4)).isEqualTo(10);
        assertThat(b.acquire(range)).isEqualTo(14);
        b.close();

        List<MachineIdLeaseInfo> leases = a.leases().orElseThrow().list(range);

        assertThat(leases).extracting(MachineIdLeaseInfo::machineId).containsExactly(10L, 11L, 12L, 13L, 14L, 15L, 16L, 17L);
        assertThat(leases.subList(0, 4)).allSatisfy(lease -> {
            assertThat(lease.state()).isEqualTo(MachineIdLeaseInfo.State.LIVE);
            assertThat(lease.owner()).isEqualTo("node-a");
            assertThat(lease.self()).isTrue();
            assertThat(lease.leaseExpiry()).isEqualTo(T0.plusSeconds(60));
            assertThat(lease.highWater()).isEqualTo(T0.plusSeconds(60));
        });
        assertThat(leases.get(4)).satisfies(lease -> {
            assertThat(lease.state()).as("released by its clean close").isEqualTo(MachineIdLeaseInfo.State.EXPIRED);
            assertThat(lease.owner()).isEqualTo("node-b");
            assertThat(lease.self()).isFalse();
        });
        assertThat(leases.subList(5, 8)).allSatisfy(lease -> {
            assertThat(lease.state()).isEqualTo(MachineIdLeaseInfo.State.FREE);
            assertThat(lease.owner()).isNull();
        });
        assertThat(b.leases().orElseThrow().list(range).get(0).self()).as("seen from another provider").isFalse();
    }

    @Test
    void aLiveLeaseIsEndedOnlyByForceAndTheNextHolderStartsAfterEverythingTheFormerCouldIssue() throws SQLException {
        ManualTimeSource clockA = new ManualTimeSource(T0);
        DbMachineIdProvider providerA = provider(pooled(2), "node-a", clockA);
        EmbeddedIdService a = blockService(providerA, clockA, 2);
        assertThat(a.machineIdBlock()).hasToString("0-1");
        clockA.advance(Duration.ofSeconds(20));
        assertThat(providerA.heartbeat()).isTrue();
        long highWater = clockA.now().plusSeconds(60).toEpochMilli();
        long lastOfA = a.genId();

        ManualTimeSource adminClock = new ManualTimeSource(clockA.now());
        MachineIdLeases admin = provider(pooled(1), "admin", adminClock).leases().orElseThrow();
        assertThatThrownBy(() -> admin.release(1, false)).isInstanceOfSatisfying(LeaseChangeRefusedException.class, e -> {
            assertThat(e.reason()).isEqualTo("live");
            assertThat(e.getMessage()).contains("owner 'node-a'").contains("is live until " + Instant.ofEpochMilli(highWater));
        });
        assertThatThrownBy(() -> providerA.leases().orElseThrow().release(0, true))
                .isInstanceOfSatisfying(LeaseChangeRefusedException.class, e -> assertThat(e.reason()).isEqualTo("own"));
        assertThatThrownBy(() -> admin.release(5, true)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("no lease on machine ID 5");

        MachineIdLeases.Released released = admin.release(1, true);

        assertThat(released.ended()).isTrue();
        assertThat(released.detail()).contains("and the other 1 machine IDs of its block");
        assertThat(released.before().generation()).isEqualTo(released.after().generation() - 1);
        for (long id = 0; id <= 1; id++) {
            assertThat(rowValue(id, "lease_expiry")).isEqualTo(adminClock.now().toEpochMilli());
            assertThat(rowValue(id, "high_water")).as("kept").isEqualTo(highWater);
        }
        // The former holder issues on up to its confirmed lease, then its renewal fails and it stops for good.
        assertThat(a.genId()).isGreaterThan(lastOfA);
        assertThat(providerA.heartbeat()).isFalse();
        assertThat(providerA.lease().lostReason()).contains("was ended by another process").contains("DELETE /vesta/admin/leases");
        assertThat(providerA.lease().isHeldAt(clockA.currentTimeMillis())).isFalse();

        // Another node takes the block at once, and starts after the high water the former holder could issue up to.
        DbMachineIdProvider providerB = provider(pooled(1), "node-b", adminClock);
        assertThat(providerB.acquire(new MachineIdRange(0, 1023), 2)).isZero();
        assertThat(providerB.notBefore()).hasValue(highWater);
        assertThatThrownBy(() -> admin.release(0, false)).as("B's lease is live")
                .isInstanceOfSatisfying(LeaseChangeRefusedException.class, e -> assertThat(e.reason()).isEqualTo("live"));
    }

    /**
     * An operator's end leaves the row expired at the operator's clock reading but keeps the former holder's high
     * water, which lies later when that holder's clock runs ahead. The next holder starts after it, and so must every
     * holder after that, whatever the next holder's renewals write: the former holder issues up to it until its next
     * renewal (or, cut off from the database, to the end of its lease).
     */
    @Test
    void theHighWaterAHolderInheritedOutlivesItsRenewalsWhenClocksDiffer() throws SQLException {
        ManualTimeSource clockA = new ManualTimeSource(T0.plusSeconds(10));
        DbMachineIdProvider providerA = provider(pooled(1), "node-a", clockA);
        EmbeddedIdService a = service(providerA, clockA);
        a.genId();
        long heldUntilA = providerA.lease().heldUntil();
        assertThat(heldUntilA).isEqualTo(T0.plusSeconds(70).toEpochMilli());
        ManualTimeSource clock = new ManualTimeSource(T0);
        assertThat(provider(pooled(1), "admin", clock).leases().orElseThrow().release(a.machineId(), true).ended()).isTrue();

        // B, its clock 10 s behind A's, takes the ended row, renews once and dies without releasing it.
        DbMachineIdProvider providerB = provider(pooled(1), "node-b", clock);
        assertThat(providerB.acquire(MachineIdRange.EMBEDDED)).isEqualTo(a.machineId());
        assertThat(providerB.notBefore()).hasValue(heldUntilA);
        clock.advance(Duration.ofSeconds(1));
        assertThat(providerB.heartbeat()).isTrue();
        assertThat(rowValue(a.machineId(), "high_water")).as("the high water after B's renewal").isGreaterThanOrEqualTo(heldUntilA);

        // C takes it once B's lease has ended, while A (cut off, say) may still issue below heldUntilA.
        clock.set(T0.plusSeconds(62));
        DbMachineIdProvider providerC = provider(pooled(1), "node-c", clock);
        assertThat(providerC.acquire(MachineIdRange.EMBEDDED)).isEqualTo(a.machineId());
        assertThat(providerC.notBefore().orElseThrow()).as("C starts after everything A could issue")
                .isGreaterThanOrEqualTo(heldUntilA);
    }

    @Test
    void anEndedLeaseIsLeftAsItIs() throws SQLException {
        ManualTimeSource clock = new ManualTimeSource(T0);
        DbMachineIdProvider a = provider(pooled(1), "node-a", clock);
        a.acquire(MachineIdRange.EMBEDDED);
        clock.advance(Duration.ofSeconds(61));
        long generation = rowValue(0, "generation");

        MachineIdLeases.Released released = provider(pooled(1), "admin", clock).leases().orElseThrow().release(0, false);

        assertThat(released.ended()).isFalse();
        assertThat(released.detail()).contains("ended at " + T0.plusSeconds(60)).contains("any node may take it");
        assertThat(rowValue(0, "generation")).isEqualTo(generation);
    }

    @Test
    void aBlockIsRenewedAndReleasedWholeAndATakeoverStartsAfterItsHighestMark() throws SQLException {
        ManualTimeSource clockA = new ManualTimeSource(T0);
        DbMachineIdProvider providerA = provider(pooled(2), "node-a", clockA);
        // A single ID's row in the first block sends a node with a block of 4 to the second.
        ManualTimeSource clockSingle = new ManualTimeSource(T0);
        DbMachineIdProvider single = provider(pooled(1), "node-single", clockSingle);
        single.acquire(new MachineIdRange(2, 2));
        EmbeddedIdService a = blockService(providerA, clockA, 4);
        assertThat(a.machineIdBlock()).hasToString("4-7");
        long[] ids = a.genIds(5000);
        assertThat(Arrays.stream(ids).map(id -> a.expId(id).machine()).distinct().sorted().toArray())
                .containsExactly(4, 5, 6, 7);
        long generation = rowValue(4, "generation");
        for (long id = 4; id <= 7; id++) {
            assertThat(rowValue(id, "generation")).isEqualTo(generation);
            assertThat(rowValue(id, "high_water")).isEqualTo(T0.plusSeconds(60).toEpochMilli());
        }

        clockA.advance(Duration.ofSeconds(20));
        long renewedExpiry = clockA.now().plusSeconds(60).toEpochMilli();
        assertThat(providerA.heartbeat()).isTrue();
        for (long id = 4; id <= 7; id++) {
            assertThat(rowValue(id, "lease_expiry")).isEqualTo(renewedExpiry);
            assertThat(rowValue(id, "high_water")).isEqualTo(renewedExpiry);
        }

        // A crash: B takes the block once its lease has ended, after the highest mark of its rows. The single ID in
        // the first block is still live.
        clockSingle.set(T0.plusSeconds(81));
        assertThat(single.heartbeat()).isTrue();
        ManualTimeSource clockB = new ManualTimeSource(T0.plusSeconds(81));
        DbMachineIdProvider providerB = provider(pooled(2), "node-b", clockB);
        EmbeddedIdService b = blockService(providerB, clockB, 4);
        assertThat(b.machineIdBlock()).isEqualTo(a.machineIdBlock());
        assertThat(providerB.notBefore()).hasValue(renewedExpiry);
        assertThat(b.machineIdSource()).contains("taken over from 'node-a'");
        assertThat(providerA.heartbeat()).isFalse();
        assertThat(providerA.lease().lostReason()).contains("taken over by owner 'node-b'");

        // B's clean close releases all four rows: C takes them at once, after B's exact mark.
        long lastOfB = b.genId();
        b.close();
        for (long id = 4; id <= 7; id++) {
            assertThat(rowValue(id, "lease_expiry")).isEqualTo(clockB.now().toEpochMilli());
        }
        DbMachineIdProvider providerC = provider(pooled(1), "node-c", clockB);
        EmbeddedIdService c = blockService(providerC, clockB, 4);
        assertThat(c.machineIdBlock()).hasToString("4-7");
        clockB.advance(Duration.ofMillis(1));
        assertThat(c.genId()).isGreaterThan(lastOfB);
    }

    @Test
    void oneRowOfABlockTakenOverEndsTheLeaseOnTheWholeBlock() throws SQLException {
        ManualTimeSource clockA = new ManualTimeSource(T0);
        FaultyDataSource dataSourceA = pooled(2);
        DbMachineIdProvider providerA = provider(dataSourceA, "node-a", clockA);
        EmbeddedIdService a = blockService(providerA, clockA, 2);
        assertThat(a.machineIdBlock()).hasToString("0-1");
        a.genId();

        // A is cut off; once its lease has ended, a node with single IDs takes machine ID 1 alone.
        dataSourceA.down(true);
        ManualTimeSource clockB = new ManualTimeSource(T0.plusSeconds(61));
        DbMachineIdProvider providerB = provider(pooled(1), "node-b", clockB);
        assertThat(providerB.acquire(new MachineIdRange(1, 1))).isEqualTo(1);
        assertThat(providerB.notBefore()).hasValue(T0.plusSeconds(60).toEpochMilli());

        dataSourceA.down(false);
        assertThat(providerA.heartbeat()).isFalse();
        assertThat(providerA.lease().lostReason()).contains("the row of machine ID 1 of its block 0-1")
                .contains("taken over by owner 'node-b'");
        assertThatThrownBy(a::genId).isInstanceOf(MachineIdUnavailableException.class)
                .hasMessageContaining("Machine IDs 0-1 are not held by this node");
        assertThat(providerB.heartbeat()).isTrue();
    }

    @Test
    void aFullRangeOfBlocksIsRefusedWithTheFigures() {
        ManualTimeSource clock = new ManualTimeSource(T0);
        FaultyDataSource dataSource = pooled(2);
        MachineIdRange range = new MachineIdRange(0, 9);
        provider(dataSource, "node-a", clock).acquire(range, 4);
        provider(dataSource, "node-b", clock).acquire(new MachineIdRange(5, 5));

        assertThatThrownBy(() -> provider(dataSource, "node-c", clock).acquire(range, 4))
                .isInstanceOf(MachineIdUnavailableException.class)
                .hasMessage("No block of 4 machine IDs is free in range 0-9 of table " + table + ": the range holds 2 blocks"
                        + " of 4 (so 2 nodes with this block size), and each has a live lease on at least one of its IDs (5"
                        + " live rows; the first lease ends at 2026-06-01T12:01:00Z). Stop a node, widen the range, lower the"
                        + " block size, or wait for a lease to end.");
        // The IDs past the last whole block still serve single IDs.
        assertThat(provider(dataSource, "node-d", clock).acquire(range)).isEqualTo(4);
    }

    /**
     * Issue 22 item 4: a node whose row was taken over (it was cut off for longer than its lease) claims another row by
     * itself and issues again, under the new machine ID only, after that row's high water, and never an ID the taker
     * or the row's previous holder issued.
     */
    @Test
    void aNodeWhoseRowWasTakenOverClaimsAnotherByItselfAndIssuesAgainWithoutRepeatingAnId() throws Exception {
        ManualTimeSource clockA = new ManualTimeSource(T0);
        FaultyDataSource dataSourceA = pooled(2);
        // A renews on its own thread, often, so that it learns of the takeover and claims again within the test.
        DbMachineIdProvider providerA = builder(dataSourceA, "node-a", clockA).heartbeat(Duration.ofMillis(100)).build();
        toClose.add(providerA);
        EmbeddedIdService a = service(providerA, clockA);
        long lost = a.machineId();
        Set<Long> fromA = new java.util.HashSet<>(Arrays.stream(a.genIds(1_000)).boxed().toList());
        // Batches taken all along, through the loss and the regain: each must come whole from one machine ID.
        List<long[]> batches = java.util.Collections.synchronizedList(new ArrayList<>());
        AtomicBoolean stop = new AtomicBoolean();
        Thread issuer = new Thread(() -> {
            while (!stop.get()) {
                try {
                    batches.add(a.genIds(100));
                } catch (MachineIdUnavailableException e) {
                    // not held: the loss, before the regain
                }
                try {
                    Thread.sleep(1);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, "issuer");
        issuer.start();

        // A pauses (cut off from the database) past its lease. Meanwhile C held machine ID 1 for a while and closed,
        // and B, whose clock is past A's lease, takes A's row over.
        long highWaterOfA = rowValue(lost, "high_water");
        dataSourceA.down(true);
        ManualTimeSource clockC = new ManualTimeSource(T0.plusSeconds(60).plusMillis(500));
        DbMachineIdProvider providerC = provider(pooled(1), "node-c", clockC);
        EmbeddedIdService c = EmbeddedIdService.builder().type(IdType.MIN_GRANULARITY).machineIdRange(new MachineIdRange(1, 1))
                .machineIdProvider(providerC).timeSource(clockC).build();
        toClose.add(c);
        assertThat(c.machineId()).isEqualTo(1);
        long[] fromC = c.genIds(1_000);
        c.close();
        long highWaterOfC = rowValue(1, "high_water");
        ManualTimeSource clockB = new ManualTimeSource(T0.plusSeconds(61));
        EmbeddedIdService b = service(provider(pooled(1), "node-b", clockB), clockB);
        assertThat(b.machineId()).isEqualTo(lost);
        long[] fromB = b.genIds(1_000);

        // A's pause ends: its clock has moved on, and its next heartbeat finds the row in B's hands.
        clockA.set(T0.plusSeconds(61));
        dataSourceA.down(false);
        List<Long> again = new ArrayList<>();
        awaitTrue("A issues again after its row was taken over", () -> {
            try {
                again.addAll(Arrays.stream(a.genIds(500)).boxed().toList());
                return true;
            } catch (MachineIdUnavailableException e) {
                return false;
            }
        });
        for (int i = 0; i < 20; i++) {
            again.addAll(Arrays.stream(a.genIds(500)).boxed().toList());
        }
        stop.set(true);
        issuer.join(10_000);

        // The lowest free row is C's: A issues under it from its high water on, and only under it.
        assertThat(a.machineId()).isEqualTo(1);
        assertThat(again).hasSize(10_500).doesNotHaveDuplicates()
                .allSatisfy(id -> assertThat(a.expId(id).machine()).isEqualTo(1));
        long firstTime = again.stream().mapToLong(id -> a.expId(id).time()).min().orElseThrow();
        assertThat(a.transTime(firstTime).toEpochMilli()).as("after the high water of the row A took")
                .isGreaterThanOrEqualTo(highWaterOfC);
        Set<Long> issuedBefore = new java.util.HashSet<>(fromA);
        Arrays.stream(fromB).forEach(issuedBefore::add);
        Arrays.stream(fromC).forEach(issuedBefore::add);
        assertThat(again).as("IDs A issued again that A, B or C had issued").noneMatch(issuedBefore::contains);
        List<Long> fromIssuer = new ArrayList<>();
        synchronized (batches) {
            for (long[] batch : batches) {
                assertThat(Arrays.stream(batch).map(id -> a.expId(id).machine()).distinct().count())
                        .as("machine IDs in one batch").isOne();
                Arrays.stream(batch).forEach(fromIssuer::add);
            }
        }
        assertThat(fromIssuer).as("the issuer's IDs").doesNotHaveDuplicates().noneMatch(again::contains)
                .noneMatch(issuedBefore::contains);
        assertThat(fromIssuer.stream().filter(id -> a.expId(id).machine() == lost))
                .as("IDs of the lost row issued by A after the high water B took over from")
                .allSatisfy(id -> assertThat(a.transTime(a.expId(id).time()).toEpochMilli()).isLessThan(highWaterOfA));
        assertThat(a.machineIdLease().isHeldAt(clockA.currentTimeMillis())).isTrue();
        assertThat(rowValue(1, "generation")).isEqualTo(2);
        assertThat(b.genId()).as("B keeps the row it took").isPositive();
    }

    EmbeddedIdService blockService(DbMachineIdProvider provider, TimeSource clock, int blockSize) {
        EmbeddedIdService service = EmbeddedIdService.builder().type(IdType.MIN_GRANULARITY).machineIdRange(0, 923)
                .machineIdProvider(provider).machineIdBlockSize(blockSize).timeSource(clock).build();
        toClose.add(service);
        return service;
    }

    static void awaitTrue(String what, BooleanSupplier condition) throws InterruptedException {
        io.vesta.test.Await.until(what, java.time.Duration.ofSeconds(10), condition);
    }
}
