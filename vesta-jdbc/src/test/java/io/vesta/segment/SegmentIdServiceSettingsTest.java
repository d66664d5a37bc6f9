package io.vesta.segment;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.time.Duration;
import java.util.function.UnaryOperator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/** Settings, arguments, the step rule and the DDL, without a database. */
class SegmentIdServiceSettingsTest {

    private final SwitchableDataSource unused = new SwitchableDataSource(null);

    private SegmentIdService.Builder builder() {
        return SegmentIdService.builder().dataSource(unused);
    }

    private void rejects(UnaryOperator<SegmentIdService.Builder> setting, String message) {
        assertThatIllegalArgumentException().isThrownBy(() -> setting.apply(builder()).build()).withMessage(message);
    }

    @Test
    void everySettingIsCheckedWithItsNameValueAndRange() {
        rejects(b -> b.dataSource(null), "dataSource must be set");
        rejects(b -> b.refillThreshold(1.0), "refillThreshold must be in [0.0, 1.0), was 1.0");
        rejects(b -> b.refillThreshold(-0.1), "refillThreshold must be in [0.0, 1.0), was -0.1");
        rejects(b -> b.refillThreshold(Double.NaN), "refillThreshold must be in [0.0, 1.0), was NaN");
        rejects(b -> b.targetDuration(Duration.ZERO), "targetDuration must be in [1ms, 86400000ms], was 0ms");
        rejects(b -> b.targetDuration(null), "targetDuration must be set");
        rejects(b -> b.maxStep(0), "maxStep must be in [1, 1000000000], was 0");
        rejects(b -> b.defaultStep(1_000_000_001), "defaultStep must be in [1, 1000000000], was 1000000001");
        rejects(b -> b.retryInterval(Duration.ofMinutes(2)), "retryInterval must be in [0ms, 60000ms], was 120000ms");
        rejects(b -> b.loaderThreads(0), "loaderThreads must be in [1, 64], was 0");
        rejects(b -> b.timeSource(null), "timeSource must be set");
    }

    @Test
    void tableNameMustBeAPlainSqlIdentifier() {
        rejects(b -> b.table("vesta_segment; DROP TABLE users"), "table must be an SQL identifier (letters, digits and _, "
                + "not starting with a digit, at most 63 characters, optionally schema.table), was 'vesta_segment; DROP TABLE users'");
        rejects(b -> b.table("1segments"), "table must be an SQL identifier (letters, digits and _, not starting with a "
                + "digit, at most 63 characters, optionally schema.table), was '1segments'");
        rejects(b -> b.table(null), "table must be an SQL identifier (letters, digits and _, not starting with a "
                + "digit, at most 63 characters, optionally schema.table), was null");
        try (SegmentIdService service = builder().table("ids.Segments_2").build()) {
            assertThat(service.table()).isEqualTo("ids.Segments_2");
        }
        try (SegmentIdService service = builder().build()) {
            assertThat(service.table()).isEqualTo("vesta_segment");
        }
    }

    @Test
    void countAndTagAreCheckedBeforeTheDatabase() {
        try (SegmentIdService service = builder().build()) {
            assertThatIllegalArgumentException().isThrownBy(() -> service.nextIds("orders", 0))
                    .withMessage("count must be in [1, 100000], was 0");
            assertThatIllegalArgumentException().isThrownBy(() -> service.nextIds("orders", 100_001))
                    .withMessage("count must be in [1, 100000], was 100001");
            assertThatIllegalArgumentException().isThrownBy(() -> service.nextId(null))
                    .withMessage("bizTag must be set");
            assertThatIllegalArgumentException().isThrownBy(() -> service.nextId(" "))
                    .withMessage("bizTag must be 1 to 128 characters and not blank, was ' ' (1 characters)");
            assertThatIllegalArgumentException().isThrownBy(() -> service.nextId("x".repeat(129)))
                    .withMessageStartingWith("bizTag must be 1 to 128 characters and not blank, was 'xxx")
                    .withMessageEndingWith("(129 characters)");
            assertThat(service.segments()).isEmpty();
        }
    }

    @ParameterizedTest(name = "step {0}, table {1}, max {2}, lasted {3} min of 15 -> {4}")
    @CsvSource({
            "100, 100, 800, 1, 200",      // faster than the target: doubles
            "400, 100, 800, 14, 800",
            "800, 100, 800, 1, 800",      // capped at maxStep
            "600, 100, 800, 1, 800",
            "800, 100, 800, 15, 800",     // between the target and twice it: kept
            "800, 100, 800, 29, 800",
            "800, 100, 800, 30, 400",     // twice the target or slower: halves
            "150, 100, 800, 600, 100",    // never below the table's step
            "100, 100, 800, 600, 100",
            "100, 300, 800, 1, 300",      // a raised table step is the floor
            "900, 2000, 800, 1, 2000",    // even above maxStep: the table is the operator's word
    })
    void stepRuleFollowsHowLongTheLastSegmentLasted(int step, int tableStep, int maxStep, long minutes, int expected) {
        assertThat(SegmentIdService.nextStep(step, tableStep, maxStep, Duration.ofMinutes(minutes).toMillis(),
                Duration.ofMinutes(15).toMillis())).isEqualTo(expected);
    }

    @Test
    void scriptIsChosenByDatabaseProductName() {
        assertThat(SegmentSchema.scriptFor("PostgreSQL")).isEqualTo("io/vesta/segment/schema-postgresql.sql");
        assertThat(SegmentSchema.scriptFor("MySQL")).isEqualTo("io/vesta/segment/schema-mysql.sql");
        assertThat(SegmentSchema.scriptFor("MariaDB")).isEqualTo("io/vesta/segment/schema-mysql.sql");
        assertThat(SegmentSchema.scriptFor("H2")).isEqualTo("io/vesta/segment/schema-h2.sql");
        assertThatIllegalArgumentException().isThrownBy(() -> SegmentSchema.scriptFor("Oracle"))
                .withMessageStartingWith("No segment table script for database 'Oracle'; scripts exist for PostgreSQL, MySQL, MariaDB and H2");
    }

    @Test
    void scriptsNameTheConfiguredTable() {
        for (String product : new String[] {"PostgreSQL", "MariaDB", "H2"}) {
            assertThat(SegmentSchema.statements(product, "app.id_segments"))
                    .singleElement()
                    .satisfies(sql -> assertThat(sql).startsWith("CREATE TABLE IF NOT EXISTS app.id_segments (")
                            .contains("biz_tag", "max_id", "step", "description", "update_time")
                            .doesNotContain("vesta_segment", "--", ";"));
        }
    }
}
