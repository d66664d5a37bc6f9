package io.vesta.segment;

import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.time.ZonedDateTime;

/**
 * A business tag whose numbers are a date and a counter that starts again each period: with {@link Period#DAY} and
 * width 6, {@code 20261204000123} is the 123rd number of 4 December 2026 (when {@code start} is 1). The date is the
 * day (or month) in {@code zone} at the moment of the call; the counter is a segment row of its own per period,
 * {@code orders:20261204}, which the service creates on the period's first call, with max_id {@code start}, so every
 * node sharing the table draws from one counter per period with the double buffer and dynamic step of any tag.
 *
 * @param bizTag the tag callers ask for, such as {@code orders}
 * @param period how long a counter lasts: a day or a month
 * @param zone where the day (or month) is taken; every node must use the same zone for a tag
 * @param width the counter's digits, zero-padded: a period has at most 10^width - start numbers
 * @param start the first counter of each period
 */
public record DatedTag(String bizTag, Period period, ZoneId zone, int width, long start) {

    /** The most digits a number may have in all (date and counter): every such number fits in a {@code long}. */
    public static final int MAX_DIGITS = 18;

    /** How long a counter lasts. */
    public enum Period {
        /** A counter per day: {@code yyyyMMdd} and the counter. */
        DAY("yyyyMMdd"),
        /** A counter per month: {@code yyyyMM} and the counter. */
        MONTH("yyyyMM");

        private final String pattern;

        Period(String pattern) {
            this.pattern = pattern;
        }

        /** The date's digits: 8 for a day, 6 for a month. */
        public int digits() {
            return pattern.length();
        }

        /** The date's form, {@code yyyyMMdd} or {@code yyyyMM}. */
        public String pattern() {
            return pattern;
        }

        /** The widest counter: the date and the counter in {@value DatedTag#MAX_DIGITS} digits. */
        public int maxWidth() {
            return MAX_DIGITS - digits();
        }
    }

    /** The largest counter of a period: 10^width - 1. */
    public long maxCounter() {
        return pow10(width) - 1;
    }

    /**
     * The largest step of this tag's rows: a hundredth of a period's numbers (at least 1), below the service's
     * default and maximum steps when they are larger. One node's segment then never holds the rest of the period
     * while another node's calls fail past the width, and a restart skips a few numbers, not the period's.
     */
    public int maxStep() {
        return (int) Math.max(1, Math.min(Integer.MAX_VALUE, (pow10(width) - start) / 100));
    }

    /** The row of the segment table that holds the counter of {@code periodKey}: {@code orders:20261204}. */
    public String rowTag(String periodKey) {
        return bizTag + ':' + periodKey;
    }

    /**
     * The period that {@code epochMillis} falls in, in {@link #zone}: its bounds, its key ({@code 20261204}) and the
     * prefix its numbers start from.
     * @throws IllegalStateException for a date outside the years 1000 to 9999, which would not have {@code yyyy}'s
     *         four digits
     */
    PeriodAt periodAt(long epochMillis) {
        LocalDate date = Instant.ofEpochMilli(epochMillis).atZone(zone).toLocalDate();
        if (date.getYear() < 1000 || date.getYear() > 9999) {
            throw new IllegalStateException("Dated tag '" + bizTag + "' cannot number the date " + date
                    + ": the year must have four digits");
        }
        LocalDate first = period == Period.DAY ? date : date.withDayOfMonth(1);
        LocalDate next = period == Period.DAY ? first.plusDays(1) : first.plusMonths(1);
        long digits = period == Period.DAY
                ? date.getYear() * 10_000L + date.getMonthValue() * 100L + date.getDayOfMonth()
                : date.getYear() * 100L + date.getMonthValue();
        String key = Long.toString(digits);
        // atStartOfDay, not a fixed midnight: in a zone whose DST change skips midnight the day starts at 01:00.
        return new PeriodAt(startOf(first), startOf(next), key, rowTag(key), digits * pow10(width));
    }

    private long startOf(LocalDate date) {
        ZonedDateTime start = date.atStartOfDay(zone);
        return start.toInstant().toEpochMilli();
    }

    static long pow10(int exponent) {
        long value = 1;
        for (int i = 0; i < exponent; i++) {
            value *= 10;
        }
        return value;
    }

    /**
     * One period of a dated tag: numbers in it are {@code prefix + counter}, drawn from row {@code rowTag}, for calls
     * made in [{@code from}, {@code until}) (epoch milliseconds).
     */
    record PeriodAt(long from, long until, String key, String rowTag, long prefix) {

        boolean contains(long epochMillis) {
            return epochMillis >= from && epochMillis < until;
        }
    }
}
