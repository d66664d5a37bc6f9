package io.vesta.segment;

import io.vesta.InvalidSettingException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.time.Duration;
import java.util.function.UnaryOperator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/** Settings, arguments, the step rule and the DDL, without a database. */
class SegmentIdServiceSettingsTest {

    private final SwitchableDataSource unused = new SwitchableDataSource(null);

    private SegmentIdService.Builder builder() {
        return SegmentIdService.builder().dataSource(unused);
    }

    private void rejects(UnaryOperator<SegmentIdService.Builder> setting, String name, Object value, String allowed) {
        assertThatExceptionOfType(InvalidSettingException.class).isThrownBy(() -> setting.apply(builder()).build())
                .satisfies(e -> {
                    assertThat(e.setting()).isEqualTo(name);
                    assertThat(e.value()).isEqualTo(value);
                    assertThat(e.allowed()).isEqualTo(allowed);
                });
    }

    @Test
    void everySettingIsCheckedWithItsNameValueAndRange() {
        rejects(b -> b.dataSource(null), "data-source", null, "a DataSource holding the segment table");
        String share = "a share of the segment at least 0.0 and below 1.0, such as 0.1";
        rejects(b -> b.refillThreshold(1.0), "refill-threshold", 1.0, share);
        rejects(b -> b.refillThreshold(-0.1), "refill-threshold", -0.1, share);
        rejects(b -> b.refillThreshold(Double.NaN), "refill-threshold", Double.NaN, share);
        rejects(b -> b.targetDuration(Duration.ZERO), "target-duration", "0ms", "a duration in [1ms, 86400000ms]");
        rejects(b -> b.targetDuration(null), "target-duration", null, "a duration in [1ms, 86400000ms]");
        rejects(b -> b.maxStep(0), "max-step", 0L, "a value in [1, 1000000000]");
        rejects(b -> b.defaultStep(1_000_000_001), "default-step", 1_000_000_001L, "a value in [1, 1000000000]");
        rejects(b -> b.retryInterval(Duration.ofMinutes(2)), "retry-interval", "120000ms", "a duration in [0ms, 60000ms]");
        rejects(b -> b.loaderThreads(0), "loader-threads", 0L, "a value in [1, 64]");
        rejects(b -> b.timeSource(null), "time-source", null, "a TimeSource, such as TimeSource.system()");
    }

    @Test
    void everySettingIsNamedUnderTheCallersPrefix() {
        assertThatExceptionOfType(InvalidSettingException.class)
                .isThrownBy(() -> builder().settingPrefix("vesta.segment.").maxStep(0).build())
                .withMessage("vesta.segment.max-step=0 is out of range; allowed: a value in [1, 1000000000]")
                .satisfies(e -> assertThat(e.setting()).isEqualTo("vesta.segment.max-step"));
    }

    @Test
    void tableNameMustBeAPlainSqlIdentifier() {
        String identifier = "an unquoted SQL identifier (letters, digits and _, not starting with a digit, at most 63"
                + " characters), optionally schema.table";
        rejects(b -> b.table("vesta_segment; DROP TABLE users"), "table", "vesta_segment; DROP TABLE users", identifier);
        rejects(b -> b.table("1segments"), "table", "1segments", identifier);
        rejects(b -> b.table("s".repeat(64)), "table", "s".repeat(64), identifier);
        rejects(b -> b.table(null), "table", null, identifier);
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
                .withMessageStartingWith("No schema script for database 'Oracle'; scripts ship for PostgreSQL, MySQL/MariaDB and H2 (io/vesta/segment/schema-*.sql)");
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
