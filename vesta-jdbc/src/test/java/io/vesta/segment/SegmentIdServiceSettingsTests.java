package io.vesta.segment;

import io.vesta.InvalidSettingException;
import io.vesta.SegmentNumbers;
import io.vesta.test.FaultyDataSource;
import io.vesta.test.TestDatabase;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

import java.time.Duration;
import java.util.List;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.junit.jupiter.params.provider.Arguments.arguments;

/** Settings, arguments, the step rule and the DDL, without a database. */
class SegmentIdServiceSettingsTests {

    private final FaultyDataSource unused = FaultyDataSource.pooled(TestDatabase.H2.url(), 1);

    private SegmentIdServiceBuilder builder() {
        return SegmentIdService.builder().dataSource(unused);
    }

    private void rejects(UnaryOperator<SegmentIdServiceBuilder> setting, String name, Object value, String allowed) {
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
    void timeoutIsAWholeNumberOfSecondsFromOneSecondToTenMinutes() {
        String seconds = "a whole number of seconds in [1s, 600s], such as 5s";
        rejects(b -> b.timeout(Duration.ZERO), "timeout", "0ms", seconds);
        rejects(b -> b.timeout(Duration.ofMillis(999)), "timeout", "999ms", seconds);
        rejects(b -> b.timeout(Duration.ofSeconds(601)), "timeout", "601000ms", seconds);
        rejects(b -> b.timeout(Duration.ofSeconds(-5)), "timeout", "-5000ms", seconds);
        rejects(b -> b.timeout(null), "timeout", null, seconds);
        assertThatExceptionOfType(InvalidSettingException.class)
                .isThrownBy(() -> builder().settingPrefix("vesta.segment.").timeout(Duration.ofMillis(1500)).build())
                .withMessage("vesta.segment.timeout=1500ms is not a whole number of seconds (JDBC counts query timeouts"
                        + " in seconds); allowed: " + seconds);
        for (Duration allowed : List.of(Duration.ofSeconds(1), Duration.ofSeconds(30), Duration.ofMinutes(10))) {
            try (SegmentIdService service = builder().timeout(allowed).build()) {
                assertThat(service.timeout()).isEqualTo(allowed);
            }
        }
        try (SegmentIdService service = builder().build()) {
            assertThat(service.timeout()).isEqualTo(SegmentIdService.DEFAULT_TIMEOUT).isEqualTo(Duration.ofSeconds(5));
        }
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
                    .withMessage("bizTag must be set: 1 to 128 characters matching " + PATTERN);
            assertThatIllegalArgumentException().isThrownBy(() -> service.nextId(" "))
                    .withMessage("bizTag must be 1 to 128 characters matching " + PATTERN + " (letters, digits, '_', '.',"
                            + " ':', '-'; the first a letter, digit or '_'), was \" \" (1 characters)");
            assertThatIllegalArgumentException().isThrownBy(() -> service.nextId("x".repeat(129)))
                    .withMessageContaining("was \"" + "x".repeat(129) + "\" (129 characters)");
            assertThatIllegalArgumentException().isThrownBy(() -> service.nextIds("y".repeat(300), 2))
                    .withMessageContaining("was \"" + "y".repeat(160) + "...\" (300 characters)");
            assertThat(service.segments()).isEmpty();
        }
    }

    private static final String PATTERN = "[A-Za-z0-9_][A-Za-z0-9_.:-]{0,127}";

    /** Every way a tag enters checks it the same way, and shows the refused value escaped. */
    static Stream<Arguments> tagsOutsideThePattern() {
        return Stream.of(arguments("a;b", "a;b"), arguments("a b", "a b"), arguments("a/b", "a/b"),
                arguments("a%3Bb", "a%3Bb"), arguments(".hidden", ".hidden"), arguments("-x", "-x"),
                arguments("a\u0000b", "a\\u0000b"), arguments("a\u200bb", "a\\u200bb"),
                arguments("\uff4frders", "\\uff4frders"), arguments("tab\tx", "tab\\u0009x"),
                arguments("q\"x", "q\\\"x"), arguments("", ""));
    }

    @ParameterizedTest(name = "[{index}] {1}")
    @MethodSource("tagsOutsideThePattern")
    void tagsOutsideThePatternAreRefusedBeforeTheDatabaseAndShownEscaped(String bizTag, String shown) {
        try (SegmentIdService service = builder().build()) {
            for (Runnable call : List.<Runnable>of(() -> service.nextId(bizTag), () -> service.nextIds(bizTag, 3),
                    () -> service.nextIdsOfExistingTag(bizTag, 1), () -> service.createTag(bizTag, 10, 1))) {
                assertThatIllegalArgumentException().isThrownBy(call::run)
                        .withMessageStartingWith("bizTag must be 1 to 128 characters matching " + PATTERN)
                        .withMessageContaining("was \"" + shown + "\" (" + bizTag.length() + " characters)");
            }
            assertThat(service.segments()).isEmpty();
        }
        assertThatIllegalArgumentException().isThrownBy(() -> SegmentNumbers.requireValidBizTag("segment", bizTag))
                .withMessageStartingWith("segment must be 1 to 128 characters");
    }

    @Test
    void tagsInsideThePatternPass() {
        for (String tag : List.of("orders", "a", "_x", "9", "orders.eu:2024-01_x", "T".repeat(128))) {
            assertThat(SegmentNumbers.requireValidBizTag("bizTag", tag)).isEqualTo(tag);
        }
    }

    @Test
    void autoCreateTagsIsARegularExpressionAndNotCombinedWithAutoCreate() {
        rejects(b -> b.autoCreateTags("orders|("), "auto-create-tags", "orders|(",
                "a Java regular expression matched against the whole tag, such as orders|invoices|tenant-[0-9]+");
        rejects(b -> b.autoCreate(true).autoCreateTags("orders"), "auto-create-tags", "orders",
                "unset while auto-create is true, which creates every tag");
        rejects(b -> b.idleTimeout(Duration.ofMillis(999)), "idle-timeout", "999ms", "a duration in [1000ms, 31536000000ms]");
        rejects(b -> b.maxBufferedTags(0), "max-buffered-tags", 0L, "a value in [1, 100000]");
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
        assertThat(SegmentSource.nextStep(step, tableStep, maxStep, Duration.ofMinutes(minutes).toMillis(),
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
