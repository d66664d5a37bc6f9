package io.vesta.segment;

import io.vesta.test.ManualTimeSource;
import io.vesta.test.TestDatabase;
import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * Dated tags against one database, with a clock moved by hand across midnight and month ends. Subclasses name the
 * database (H2, PostgreSQL, MariaDB); every test makes its own table and drops it.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class DatedTagContract {

    private static final String TAG = "orders";
    /** UTC+9 all year: its midnight is 15:00 UTC, so the UTC date is still the day before. */
    private static final ZoneId TOKYO = ZoneId.of("Asia/Tokyo");
    /** 4 December 2026, 23:59:59.998 in Tokyo. */
    private static final Instant BEFORE_TOKYO_MIDNIGHT = Instant.parse("2026-12-04T14:59:59.998Z");

    private String table;
    private final List<SegmentIdService> services = new ArrayList<>();
    private final ManualTimeSource clock = new ManualTimeSource(BEFORE_TOKYO_MIDNIGHT);

    private HikariDataSource pool;

    abstract TestDatabase database();

    @BeforeAll
    void connect() {
        pool = database().pool(12);
    }

    @AfterAll
    void disconnect() {
        if (pool != null) {
            pool.close();
        }
    }

    private HikariDataSource pool() {
        return pool;
    }

    @BeforeEach
    void createTable() {
        clock.set(BEFORE_TOKYO_MIDNIGHT);
        table = TestDatabase.uniqueName("vesta_dated_t");
        SegmentSchema.initialize(pool(), table);
    }

    @AfterEach
    void dropTable() throws SQLException {
        services.forEach(SegmentIdService::close);
        services.clear();
        try (Connection connection = pool().getConnection(); Statement statement = connection.createStatement()) {
            statement.execute("DROP TABLE " + table);
        }
    }

    @Test
    void dailyNumbersAreTheDateInTheZoneAndTheCounterStartsAgainAfterMidnight() throws SQLException {
        SegmentIdService numbers = service(b -> b.datedTag(TAG, DatedTag.Period.DAY, TOKYO, 6, 1));

        assertThat(numbers.nextId(TAG)).isEqualTo(20261204_000001L);
        assertThat(numbers.nextId(TAG)).isEqualTo(20261204_000002L);
        clock.advance(Duration.ofMillis(1));
        assertThat(numbers.nextId(TAG)).isEqualTo(20261204_000003L);
        clock.advance(Duration.ofMillis(1));
        // Midnight in Tokyo; in UTC it is still 4 December, 15:00.
        assertThat(clock.now()).isEqualTo(Instant.parse("2026-12-04T15:00:00Z"));
        assertThat(numbers.nextId(TAG)).isEqualTo(20261205_000001L);
        assertThat(numbers.nextId(TAG)).isEqualTo(20261205_000002L);

        assertThat(rows()).containsExactly("orders:20261204", "orders:20261205");
    }

    @Test
    void monthlyNumbersStartAgainAtTheConfiguredStartAfterTheMonthEnds() {
        ZoneId newYork = ZoneId.of("America/New_York");
        // 31 December 2026, 23:59:59.999 in New York: already 1 January 2027 in UTC.
        clock.set(Instant.parse("2027-01-01T04:59:59.999Z"));
        SegmentIdService numbers = service(b -> b.datedTag(TAG, DatedTag.Period.MONTH, newYork, 5, 100));

        assertThat(numbers.nextIds(TAG, 3)).containsExactly(202612_00100L, 202612_00101L, 202612_00102L);
        clock.advance(Duration.ofMillis(1));
        assertThat(numbers.nextId(TAG)).isEqualTo(202701_00100L);
        // The whole of January is one period: the last millisecond of 31 January, New York time.
        clock.set(Instant.parse("2027-02-01T04:59:59.999Z"));
        assertThat(numbers.nextId(TAG)).isEqualTo(202701_00101L);
        clock.advance(Duration.ofMillis(1));
        assertThat(numbers.nextId(TAG)).isEqualTo(202702_00100L);
    }

    @Test
    void aDaylightSavingChangeMovesNoDate() {
        ZoneId paris = ZoneId.of("Europe/Paris");
        // 28 March 2027, 01:59:59.999 in Paris: at 02:00 the clocks go to 03:00, the date stays.
        clock.set(Instant.parse("2027-03-28T00:59:59.999Z"));
        SegmentIdService numbers = service(b -> b.datedTag(TAG, DatedTag.Period.DAY, paris, 4, 1));

        assertThat(numbers.nextId(TAG)).isEqualTo(20270328_0001L);
        clock.advance(Duration.ofMillis(1));
        assertThat(numbers.nextId(TAG)).isEqualTo(20270328_0002L);
        // Midnight in Paris is now 22:00 UTC (summer time).
        clock.set(Instant.parse("2027-03-28T21:59:59.999Z"));
        assertThat(numbers.nextId(TAG)).isEqualTo(20270328_0003L);
        clock.advance(Duration.ofMillis(1));
        assertThat(numbers.nextId(TAG)).isEqualTo(20270329_0001L);
    }

    @Test
    void aCounterBeyondItsWidthFailsNamingTheTagPeriodAndWidthUntilTheNextPeriod() {
        SegmentIdService numbers = service(b -> b.defaultStep(5).datedTag(TAG, DatedTag.Period.DAY, TOKYO, 2, 97));

        assertThat(numbers.nextIds(TAG, 3)).containsExactly(20261204_97L, 20261204_98L, 20261204_99L);
        DatedNumberOverflowException overflow = catchThrowableOfType(DatedNumberOverflowException.class,
                () -> numbers.nextId(TAG));
        assertThat(overflow.bizTag()).isEqualTo(TAG);
        assertThat(overflow.period()).isEqualTo("20261204");
        assertThat(overflow.width()).isEqualTo(2);
        assertThat(overflow.reached()).isEqualTo(100);
        assertThat(overflow).hasMessageContaining("'orders'").hasMessageContaining("period 20261204")
                .hasMessageContaining("reached 100").hasMessageContaining("width 2");
        // Still failing, never wrapped to 00 or widened to 100.
        assertThatThrownBy(() -> numbers.nextId(TAG)).isInstanceOf(DatedNumberOverflowException.class)
                .hasMessageContaining("reached 101");
        assertThatThrownBy(() -> numbers.nextIds(TAG, 2)).isInstanceOf(DatedNumberOverflowException.class);

        clock.advance(Duration.ofMillis(2));
        assertThat(numbers.nextId(TAG)).isEqualTo(20261205_97L);
    }

    /**
     * A narrow counter (width 3: 999 numbers a day) under the default step of 1000: the step of a dated row is capped
     * at a hundredth of its period's numbers, so that one node's segment never takes the whole day while another
     * node's calls fail, and a restart skips a few numbers, not the day.
     */
    @Test
    void aNarrowCounterIsSharedByTwoNodesToItsLastNumber() {
        SegmentIdService a = service(b -> b.datedTag(TAG, DatedTag.Period.DAY, TOKYO, 3, 1));
        SegmentIdService b = service(b2 -> b2.datedTag(TAG, DatedTag.Period.DAY, TOKYO, 3, 1));
        Set<Long> seen = new HashSet<>();
        int[] served = new int[2];
        boolean[] done = new boolean[2];
        SegmentIdService[] nodes = { a, b };
        for (int i = 0; !done[0] || !done[1]; i++) {
            assertThat(i).as("calls").isLessThan(3000);
            int node = i % 2;
            if (done[node]) {
                continue;
            }
            try {
                long number = nodes[node].nextId(TAG);
                assertThat(seen.add(number)).as("%d handed out twice", number).isTrue();
                served[node]++;
            } catch (DatedNumberOverflowException e) {
                done[node] = true;
            }
        }
        assertThat(seen).hasSize(999).allSatisfy(n -> assertThat(n).isBetween(20261204_001L, 20261204_999L));
        assertThat(served[0]).as("numbers from node a").isGreaterThan(400);
        assertThat(served[1]).as("numbers from node b").isGreaterThan(400);
    }

    @Test
    void aBatchIsAllOfThePeriodOfItsCallAcrossSegments() {
        SegmentIdService numbers = service(b -> b.defaultStep(3).datedTag(TAG, DatedTag.Period.DAY, TOKYO, 6, 1));

        long[] batch = numbers.nextIds(TAG, 10);
        for (int i = 0; i < batch.length; i++) {
            assertThat(batch[i]).isEqualTo(20261204_000001L + i);
        }
        clock.advance(Duration.ofSeconds(1));
        assertThat(numbers.nextIds(TAG, 2)).containsExactly(20261205_000001L, 20261205_000002L);
    }

    @Test
    void theBuffersOfEndedPeriodsAreDroppedSoAServiceHoldsOneRowPerDatedTag() {
        SegmentIdService numbers = service(b -> b.datedTag(TAG, DatedTag.Period.DAY, TOKYO, 6, 1));

        for (int day = 0; day < 30; day++) {
            assertThat(numbers.nextId(TAG) % 1_000_000).isEqualTo(1);
            clock.advance(Duration.ofDays(1));
        }
        assertThat(numbers.segments()).extracting(SegmentView::bizTag).containsExactly("orders:20270102");
        assertThat(numbers.bufferedTags()).isEqualTo(1);
        assertThat(numbers.droppedBuffers()).isEqualTo(29);
    }

    @Test
    void twoDatedTagsAndAPlainTagKeepTheirOwnCounters() {
        SegmentIdService numbers = service(b -> b.autoCreateTags("plain")
                .datedTag(TAG, DatedTag.Period.DAY, TOKYO, 6, 1)
                .datedTag("invoices", DatedTag.Period.MONTH, ZoneId.of("UTC"), 8, 1));

        assertThat(numbers.nextId(TAG)).isEqualTo(20261204_000001L);
        assertThat(numbers.nextId("invoices")).isEqualTo(202612_00000001L);
        assertThat(numbers.nextId("plain")).isEqualTo(1);
        assertThat(numbers.nextId(TAG)).isEqualTo(20261204_000002L);
        assertThat(numbers.datedTags()).extracting(DatedTag::bizTag).containsExactly("invoices", TAG);
    }

    @Test
    void callersThatMayNotCreateGetNumbersOnlyOnceThePeriodHasItsRow() throws SQLException {
        SegmentIdService numbers = service(b -> b.datedTag(TAG, DatedTag.Period.DAY, TOKYO, 6, 1));

        assertThatThrownBy(() -> numbers.nextIdsOfExistingTag(TAG, 1)).isInstanceOf(UnknownBizTagException.class)
                .hasMessageContaining("orders:20261204");
        assertThat(rows()).isEmpty();
        assertThat(numbers.nextId(TAG)).isEqualTo(20261204_000001L);
        assertThat(numbers.nextIdsOfExistingTag(TAG, 2)).containsExactly(20261204_000002L, 20261204_000003L);
    }

    @Test
    void aPeriodsRowIsNotATagOfItsOwn() throws SQLException {
        SegmentIdService numbers = service(b -> b.datedTag(TAG, DatedTag.Period.DAY, TOKYO, 6, 1));

        assertThatIllegalArgumentException().isThrownBy(() -> numbers.nextId("orders:20261204"))
                .withMessageContaining("dated tag 'orders'");
        assertThatIllegalArgumentException().isThrownBy(() -> numbers.nextIds("orders:20261204", 2))
                .withMessageContaining("dated tag 'orders'");
        assertThat(rows()).isEmpty();
    }

    @Test
    void aClockSteppedBackIntoYesterdayDrawsYesterdaysCounterOnwards() {
        SegmentIdService numbers = service(b -> b.defaultStep(2).datedTag(TAG, DatedTag.Period.DAY, TOKYO, 6, 1));

        assertThat(numbers.nextId(TAG)).isEqualTo(20261204_000001L);
        clock.advance(Duration.ofMillis(2));
        assertThat(numbers.nextId(TAG)).isEqualTo(20261205_000001L);
        clock.advance(Duration.ofMillis(-2));
        // The row of 4 December carries on from a new segment (the dropped buffer's numbers are skipped): never a
        // number again.
        assertThat(numbers.nextId(TAG)).isBetween(20261204_000002L, 20261204_999999L);
    }

    /**
     * Two nodes on one table, four threads each, with the clock moved across midnight while they draw: every thread
     * notes the clock before each call, and a call that began after midnight must carry the new date.
     */
    @Test
    void twoNodesCrossingMidnightConcurrentlyNeverRepeatAndStartTheDayAtStart() throws Exception {
        long start = 7;
        SegmentIdService first = service(b -> b.defaultStep(10).maxStep(40).datedTag(TAG, DatedTag.Period.DAY, TOKYO, 8, start));
        SegmentIdService second = service(b -> b.defaultStep(10).maxStep(40).datedTag(TAG, DatedTag.Period.DAY, TOKYO, 8, start));
        SegmentIdService[] nodes = {first, second};
        long midnight = Instant.parse("2026-12-04T15:00:00Z").toEpochMilli();
        int threads = 8;
        int perThread = 4000;
        AtomicLong drawn = new AtomicLong();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            CountDownLatch go = new CountDownLatch(1);
            List<Future<long[][]>> results = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                SegmentIdService node = nodes[t % 2];
                boolean batches = t % 4 >= 2;
                results.add(pool.submit(() -> {
                    long[][] mine = new long[2][perThread];
                    go.await();
                    int filled = 0;
                    while (filled < perThread) {
                        long before = clock.currentTimeMillis();
                        long[] ids = batches ? node.nextIds(TAG, Math.min(3, perThread - filled))
                                : new long[] {node.nextId(TAG)};
                        for (long id : ids) {
                            mine[0][filled] = before;
                            mine[1][filled++] = id;
                        }
                        // The clock crosses midnight halfway through, while every thread draws.
                        if (drawn.addAndGet(ids.length) >= threads * perThread / 2L) {
                            clock.set(Instant.ofEpochMilli(midnight));
                        }
                    }
                    return mine;
                }));
            }
            go.countDown();
            Set<Long> seen = new HashSet<>();
            long firstOfToday = Long.MAX_VALUE;
            long firstOfYesterday = Long.MAX_VALUE;
            int today = 0;
            for (Future<long[][]> result : results) {
                long[][] mine = result.get(60, TimeUnit.SECONDS);
                for (int i = 0; i < perThread; i++) {
                    long id = mine[1][i];
                    assertThat(seen.add(id)).as("number %d issued twice", id).isTrue();
                    long date = id / 100_000_000L;
                    if (mine[0][i] >= midnight) {
                        assertThat(date).as("number %d of a call made after midnight", id).isEqualTo(20261205L);
                    } else {
                        assertThat(date).isIn(20261204L, 20261205L);
                    }
                    if (date == 20261205L) {
                        today++;
                        firstOfToday = Math.min(firstOfToday, id);
                    } else {
                        firstOfYesterday = Math.min(firstOfYesterday, id);
                    }
                }
            }
            assertThat(today).isGreaterThan(0).isLessThan(threads * perThread);
            assertThat(firstOfToday).isEqualTo(20261205_00000000L + start);
            assertThat(firstOfYesterday).isEqualTo(20261204_00000000L + start);
            assertThat(rows()).containsExactly("orders:20261204", "orders:20261205");
        } finally {
            pool.shutdownNow();
        }
    }

    private SegmentIdService service(java.util.function.UnaryOperator<SegmentIdServiceBuilder> settings) {
        SegmentIdService service = settings.apply(SegmentIdService.builder().dataSource(pool()).table(table)
                .timeSource(clock)).build();
        services.add(service);
        return service;
    }

    private List<String> rows() throws SQLException {
        List<String> rows = new ArrayList<>();
        try (Connection connection = pool().getConnection();
             PreparedStatement query = connection.prepareStatement("SELECT biz_tag FROM " + table + " ORDER BY biz_tag");
             ResultSet row = query.executeQuery()) {
            while (row.next()) {
                rows.add(row.getString(1));
            }
        }
        return rows;
    }
}
