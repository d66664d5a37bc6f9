package io.vesta.segment;

import io.vesta.InvalidSettingException;
import io.vesta.test.FaultyDataSource;
import io.vesta.test.TestDatabase;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.time.ZoneId;
import java.util.function.UnaryOperator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/** A dated tag's settings, and its periods, without a database. */
class DatedTagSettingsTests {

    private static final ZoneId UTC = ZoneId.of("UTC");

    private final FaultyDataSource unused = FaultyDataSource.pooled(TestDatabase.H2.url(), 1);

    private void rejects(UnaryOperator<SegmentIdServiceBuilder> setting, String name, Object value, String allowed) {
        assertThatExceptionOfType(InvalidSettingException.class)
                .isThrownBy(() -> setting.apply(SegmentIdService.builder().dataSource(unused)
                        .settingPrefix("vesta.segment.")).build())
                .satisfies(e -> {
                    assertThat(e.setting()).isEqualTo(name);
                    assertThat(e.value()).isEqualTo(value);
                    assertThat(e.allowed()).contains(allowed);
                });
    }

    @Test
    void widthMustLeaveTheNumberWithinEighteenDigits() {
        rejects(b -> b.datedTag("orders", DatedTag.Period.DAY, UTC, 11, 1), "vesta.segment.dated-tags.orders.width",
                11, "a counter width in [1, 10] for period day");
        rejects(b -> b.datedTag("orders", DatedTag.Period.MONTH, UTC, 13, 1), "vesta.segment.dated-tags.orders.width",
                13, "a counter width in [1, 12] for period month");
        rejects(b -> b.datedTag("orders", DatedTag.Period.DAY, UTC, 0, 1), "vesta.segment.dated-tags.orders.width",
                0, "[1, 10]");
    }

    @Test
    void theWidestCountersFitALongInTheYear9999AndOneDigitMoreWouldNot() {
        for (DatedTag.Period period : DatedTag.Period.values()) {
            long lastDate = period == DatedTag.Period.DAY ? 99991231L : 999912L;
            long widest = Math.addExact(Math.multiplyExact(lastDate, DatedTag.pow10(period.maxWidth())),
                    DatedTag.pow10(period.maxWidth()) - 1);
            assertThat(Long.toString(widest)).hasSize(DatedTag.MAX_DIGITS);
            assertThatExceptionOfType(ArithmeticException.class).as("%s with one digit more", period)
                    .isThrownBy(() -> Math.multiplyExact(lastDate, Math.multiplyExact(DatedTag.pow10(period.maxWidth()), 10L)));
        }
    }

    @Test
    void startIsACounterOfTheWidth() {
        rejects(b -> b.datedTag("orders", DatedTag.Period.DAY, UTC, 3, 1000), "vesta.segment.dated-tags.orders.start",
                1000L, "a value in [0, 999]");
        rejects(b -> b.datedTag("orders", DatedTag.Period.DAY, UTC, 3, -1), "vesta.segment.dated-tags.orders.start",
                -1L, "a value in [0, 999]");
    }

    @Test
    void periodZoneAndTagAreRequiredAndChecked() {
        rejects(b -> b.datedTag("orders", null, UTC, 6, 1), "vesta.segment.dated-tags.orders.period", null, "day or month");
        rejects(b -> b.datedTag("orders", DatedTag.Period.DAY, null, 6, 1), "vesta.segment.dated-tags.orders.zone", null,
                "a time-zone ID");
        rejects(b -> b.datedTag("ord ers", DatedTag.Period.DAY, UTC, 6, 1), "vesta.segment.dated-tags", "ord ers",
                "tags matching");
        rejects(b -> b.datedTag("orders", DatedTag.Period.DAY, UTC, 6, 1).datedTag("orders", DatedTag.Period.MONTH, UTC,
                6, 1), "vesta.segment.dated-tags", "orders", "each tag once");
        String longest = "t".repeat(119);
        rejects(b -> b.datedTag(longest + "x", DatedTag.Period.DAY, UTC, 6, 1), "vesta.segment.dated-tags",
                longest + "x", "a tag of at most 119 characters");
        SegmentIdService.builder().dataSource(unused).datedTag(longest, DatedTag.Period.DAY, UTC, 6, 1).build().close();
    }

    @Test
    void aPeriodIsTheDayOrMonthInTheZoneWithItsBounds() {
        DatedTag daily = new DatedTag("orders", DatedTag.Period.DAY, ZoneId.of("Pacific/Kiritimati"), 4, 1);
        // UTC+14: 10:00 UTC on 3 December is already 4 December there.
        DatedTag.PeriodAt day = daily.periodAt(Instant.parse("2026-12-03T10:00:00Z").toEpochMilli());
        assertThat(day.key()).isEqualTo("20261204");
        assertThat(day.rowTag()).isEqualTo("orders:20261204");
        assertThat(day.prefix()).isEqualTo(20261204_0000L);
        assertThat(Instant.ofEpochMilli(day.from())).isEqualTo(Instant.parse("2026-12-03T10:00:00Z"));
        assertThat(Instant.ofEpochMilli(day.until())).isEqualTo(Instant.parse("2026-12-04T10:00:00Z"));

        DatedTag monthly = new DatedTag("orders", DatedTag.Period.MONTH, UTC, 4, 1);
        DatedTag.PeriodAt february = monthly.periodAt(Instant.parse("2028-02-29T23:59:59.999Z").toEpochMilli());
        assertThat(february.key()).isEqualTo("202802");
        assertThat(Instant.ofEpochMilli(february.until())).isEqualTo(Instant.parse("2028-03-01T00:00:00Z"));
    }
}
