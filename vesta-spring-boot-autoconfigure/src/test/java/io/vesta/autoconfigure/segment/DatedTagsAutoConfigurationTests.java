package io.vesta.autoconfigure.segment;

import io.vesta.InvalidSettingException;
import io.vesta.autoconfigure.VestaAutoConfiguration;
import io.vesta.segment.DatedTag;
import io.vesta.segment.SegmentIdService;
import io.vesta.test.ManualTimeSource;
import io.vesta.time.TimeSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code vesta.segment.dated-tags.<tag>.*}: bound, defaulted, checked at start-up, on in-memory H2. */
class DatedTagsAutoConfigurationTests {

    private final String table = "vesta_segment_" + UUID.randomUUID().toString().replace("-", "").substring(0, 10);
    private final ManualTimeSource clock = new ManualTimeSource(Instant.parse("2026-12-04T14:59:59.999Z"));

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class, VestaAutoConfiguration.class,
                    VestaSegmentAutoConfiguration.class))
            .withBean(TimeSource.class, () -> clock)
            .withPropertyValues("spring.datasource.url=jdbc:h2:mem:" + table + ";DB_CLOSE_DELAY=-1",
                    "vesta.machine-id.value=3", "vesta.time-store.enabled=false", "vesta.segment.table=" + table,
                    "vesta.segment.enabled=true", "vesta.segment.initialize-schema=always");

    @Test
    void aDatedTagFromPropertiesNumbersByTheDateInItsZoneFromTheSharedClock() {
        runner.withPropertyValues("vesta.segment.dated-tags.orders.period=day",
                "vesta.segment.dated-tags.orders.zone=Asia/Tokyo", "vesta.segment.dated-tags.orders.width=4",
                "vesta.segment.dated-tags.orders.start=10").run(context -> {
                    SegmentIdService numbers = context.getBean(SegmentIdService.class);
                    assertThat(numbers.datedTags()).containsExactly(
                            new DatedTag("orders", DatedTag.Period.DAY, ZoneId.of("Asia/Tokyo"), 4, 10));
                    assertThat(numbers.nextId("orders")).isEqualTo(20261204_0010L);
                    clock.advance(Duration.ofMillis(1));
                    assertThat(numbers.nextId("orders")).isEqualTo(20261205_0010L);
                });
    }

    @Test
    void unsetSettingsAreADayInUtcWithSixDigitsFromOne() {
        runner.withPropertyValues("vesta.segment.dated-tags.invoices.period=MONTH",
                "vesta.segment.dated-tags.orders.width=6").run(context -> {
                    SegmentIdService numbers = context.getBean(SegmentIdService.class);
                    assertThat(numbers.datedTags()).containsExactly(
                            new DatedTag("invoices", DatedTag.Period.MONTH, ZoneId.of("UTC"), 6, 1),
                            new DatedTag("orders", DatedTag.Period.DAY, ZoneId.of("UTC"), 6, 1));
                    // 14:59:59.999 UTC: still 4 December in UTC.
                    assertThat(numbers.nextId("orders")).isEqualTo(20261204_000001L);
                    assertThat(numbers.nextId("invoices")).isEqualTo(202612_000001L);
                });
        VestaSegmentProperties.DatedTag defaults = new VestaSegmentProperties.DatedTag();
        assertThat(defaults.getPeriod()).isEqualTo(DatedTag.Period.DAY);
        assertThat(defaults.getZone()).isEqualTo("UTC");
        assertThat(defaults.getWidth()).isEqualTo(6);
        assertThat(defaults.getStart()).isEqualTo(1);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', textBlock = """
            vesta.segment.dated-tags.orders.width  | 11        | 11        | a counter width in [1, 10] for period day
            vesta.segment.dated-tags.orders.width  | 0         | 0         | a counter width in [1, 10] for period day
            vesta.segment.dated-tags.orders.start  | 1000000   | 1000000   | a value in [0, 999999]
            vesta.segment.dated-tags.orders.start  | -1        | -1        | a value in [0, 999999]
            vesta.segment.dated-tags.orders.zone   | Mars/Base | Mars/Base | a time-zone ID such as UTC
            vesta.segment.dated-tags.orders.zone   | UTC+25    | UTC+25    | a time-zone ID such as UTC
            """)
    void badValueFailsStartUpNamingTheProperty(String property, String value, String reported, String allowed) {
        runner.withPropertyValues(property + "=" + value).run(context -> {
            assertThat(context).hasFailed();
            InvalidSettingException e = invalidProperty(context.getStartupFailure());
            assertThat(e.setting()).isEqualTo(property);
            assertThat(String.valueOf(e.value())).isEqualTo(reported);
            assertThat(e.allowed()).contains(allowed);
        });
    }

    @Test
    void aPeriodOtherThanDayOrMonthFailsBindingNamingTheProperty() {
        runner.withPropertyValues("vesta.segment.dated-tags.orders.period=week").run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).hasStackTraceContaining("vesta.segment.dated-tags.orders.period")
                    .hasStackTraceContaining("week");
        });
    }

    private static InvalidSettingException invalidProperty(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof InvalidSettingException invalid) {
                return invalid;
            }
        }
        throw new AssertionError("No InvalidSettingException in the start-up failure", failure);
    }
}
