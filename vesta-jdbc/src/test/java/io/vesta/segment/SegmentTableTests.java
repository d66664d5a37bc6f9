package io.vesta.segment;

import com.zaxxer.hikari.HikariDataSource;
import io.vesta.jdbc.TableScript;
import io.vesta.test.TestDatabase;
import io.vesta.test.TestSchema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The segment table's allocations through plain JDBC, on each database the DDL ships for. */
class SegmentTableTests {

    private static final String TABLE = "segments";
    private static final int DEFAULT_STEP = 100;

    private TestSchema schema;
    private HikariDataSource pool;

    private SegmentTable table(TestDatabase database) throws Exception {
        schema = database.createSchema("vesta_segment_table");
        pool = schema.pool(4);
        try (Connection connection = pool.getConnection()) {
            new TableScript("io/vesta/segment", "vesta_segment").create(connection, TABLE, 5);
        }
        return new SegmentTable(pool, TABLE, DEFAULT_STEP, 5, "vesta.segment.timeout");
    }

    @AfterEach
    void dropSchema() {
        if (pool != null) {
            pool.close();
        }
        if (schema != null) {
            schema.close();
        }
    }

    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void aTagMissingFromTheTableIsCreatedOnFirstUseWithTheDefaultStep(TestDatabase database) throws Exception {
        SegmentTable segments = table(database);

        SegmentTable.Allocation first = segments.allocate("orders", 0, true);

        assertThat(first).isEqualTo(new SegmentTable.Allocation(1 + DEFAULT_STEP, DEFAULT_STEP, DEFAULT_STEP));
        assertThat(segments.row("orders")).containsExactly(1 + DEFAULT_STEP, DEFAULT_STEP);
    }

    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void aStepOfTheCallersMovesByThatStepAndReportsTheTablesOwn(TestDatabase database) throws Exception {
        SegmentTable segments = table(database);
        assertThat(segments.create("orders", 1, 10, "test")).isTrue();

        SegmentTable.Allocation byTable = segments.allocate("orders", 0, false);
        SegmentTable.Allocation byCaller = segments.allocate("orders", 40, false);

        assertThat(byTable).isEqualTo(new SegmentTable.Allocation(11, 10, 10));
        assertThat(byCaller).isEqualTo(new SegmentTable.Allocation(51, 40, 10));
    }

    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void aMissingTagIsUnknownWhenItMayNotBeCreated(TestDatabase database) throws Exception {
        SegmentTable segments = table(database);

        assertThatThrownBy(() -> segments.allocate("refunds", 0, false))
                .isInstanceOfSatisfying(UnknownBizTagException.class, unknown -> {
                    assertThat(unknown.bizTag()).isEqualTo("refunds");
                    assertThat(unknown.table()).isEqualTo(TABLE);
                });
        assertThat(segments.row("refunds")).isNull();
    }

    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void aTableStepBelowOneIsRefusedAndNothingIsCommitted(TestDatabase database) throws Exception {
        SegmentTable segments = table(database);
        segments.create("orders", 500, 10, "test");
        try (Connection connection = pool.getConnection(); Statement statement = connection.createStatement()) {
            statement.executeUpdate("UPDATE " + TABLE + " SET step = 0 WHERE biz_tag = 'orders'");
        }

        assertThatThrownBy(() -> segments.allocate("orders", 0, false))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("step of bizTag 'orders'")
                .hasMessageContaining("was 0");
        assertThatThrownBy(() -> segments.allocate("orders", 25, false))
                .as("even a caller's step: the table's must be fixed first")
                .isInstanceOf(IllegalStateException.class);
        assertThat(segments.row("orders")).containsExactly(500, 0);
    }

    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void creatingATagThatIsThereLeavesItsRowAsItIs(TestDatabase database) throws Exception {
        SegmentTable segments = table(database);

        assertThat(segments.create("orders", 7, 30, "first")).isTrue();
        assertThat(segments.create("orders", 1000, 5, "second")).isFalse();

        assertThat(segments.row("orders")).containsExactly(7, 30);
    }

    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void nodesAllocatingTogetherGetDisjointSegments(TestDatabase database) throws Exception {
        SegmentTable segments = table(database);
        int callers = 4;
        int each = 25;
        ExecutorService threads = Executors.newFixedThreadPool(callers);
        try {
            List<Future<List<SegmentTable.Allocation>>> results = new ArrayList<>();
            for (int c = 0; c < callers; c++) {
                results.add(threads.submit(() -> {
                    List<SegmentTable.Allocation> mine = new ArrayList<>();
                    for (int i = 0; i < each; i++) {
                        mine.add(segments.allocate("shared", 0, true));
                    }
                    return mine;
                }));
            }
            Set<Long> numbers = new HashSet<>();
            for (Future<List<SegmentTable.Allocation>> result : results) {
                for (SegmentTable.Allocation allocation : result.get(120, TimeUnit.SECONDS)) {
                    for (long n = allocation.maxId() - allocation.step(); n < allocation.maxId(); n++) {
                        assertThat(numbers.add(n)).as("number %d handed out twice", n).isTrue();
                    }
                }
            }
            assertThat(numbers).hasSize(callers * each * DEFAULT_STEP);
            assertThat(segments.row("shared")[0]).isEqualTo(1 + (long) callers * each * DEFAULT_STEP);
        } finally {
            threads.shutdownNow();
        }
    }
}
