package io.vesta.segment;

import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

/**
 * The dated tags of a service: which tag is one, which row holds its counter now, and the number a counter makes.
 * The period is read from the service's clock at every call; the row of the period in use is cached with its
 * bounds, so a call within it costs two comparisons. When the clock passes the end of the period the next row is
 * taken and the old row's buffers are dropped (their unused numbers skipped): nothing after the change is drawn
 * with the old prefix, and a service holds buffers for about one row per dated tag, not one per period.
 */
final class DatedTags {

    private static final DatedTag.PeriodAt NONE = new DatedTag.PeriodAt(Long.MIN_VALUE, Long.MIN_VALUE, "", null, 0);

    private final Map<String, Counter> counters;

    DatedTags(List<DatedTag> datedTags) {
        Map<String, Counter> map = new HashMap<>();
        datedTags.forEach(tag -> map.put(tag.bizTag(), new Counter(tag)));
        this.counters = Collections.unmodifiableMap(map);
    }

    boolean isEmpty() {
        return counters.isEmpty();
    }

    List<DatedTag> all() {
        return counters.values().stream().map(counter -> counter.tag).sorted(Comparator.comparing(DatedTag::bizTag))
                .toList();
    }

    /**
     * The dated tag {@code bizTag} names, or null for any other tag.
     * @throws IllegalArgumentException for a row of a dated tag ({@code orders:20261204}): its raw counter is not a
     *         number of the tag, and taking it by that name would slip past the period and width checks
     */
    Counter route(String bizTag) {
        Counter counter = counters.get(bizTag);
        if (counter == null && bizTag != null && rowOf(bizTag) != null) {
            throw new IllegalArgumentException("bizTag '" + bizTag + "' is a period's row of dated tag '"
                    + rowOf(bizTag).bizTag() + "': ask for '" + rowOf(bizTag).bizTag() + "', which takes the period"
                    + " from the clock");
        }
        return counter;
    }

    /** The dated tag whose period row {@code bizTag} is ({@code orders:20261204}), or null. */
    DatedTag rowOf(String bizTag) {
        int colon = bizTag.lastIndexOf(':');
        if (colon < 1) {
            return null;
        }
        Counter counter = counters.get(bizTag.substring(0, colon));
        if (counter == null || bizTag.length() - colon - 1 != counter.tag.period().digits()) {
            return null;
        }
        for (int i = colon + 1; i < bizTag.length(); i++) {
            if (bizTag.charAt(i) < '0' || bizTag.charAt(i) > '9') {
                return null;
            }
        }
        return counter.tag;
    }

    /** One dated tag and the period it is in. */
    static final class Counter {

        final DatedTag tag;
        private final long maxCounter;
        private final AtomicReference<DatedTag.PeriodAt> current = new AtomicReference<>(NONE);

        Counter(DatedTag tag) {
            this.tag = tag;
            this.maxCounter = tag.maxCounter();
        }

        /**
         * The period of {@code now}. Moving to a later period drops the buffers of the one before ({@code retire}),
         * once, by whoever moves it. A clock stepped back into an earlier period draws from that period's row again
         * (its counter goes on, nothing repeats) but does not move the cache back.
         */
        DatedTag.PeriodAt periodAt(long now, Consumer<String> retire) {
            for (;;) {
                DatedTag.PeriodAt period = current.get();
                if (period.contains(now)) {
                    return period;
                }
                DatedTag.PeriodAt fresh = tag.periodAt(now);
                if (fresh.from() <= period.from()) {
                    return fresh;
                }
                if (current.compareAndSet(period, fresh)) {
                    if (period.rowTag() != null) {
                        retire.accept(period.rowTag());
                    }
                    return fresh;
                }
            }
        }

        /** The number of {@code counter} in {@code period}, or an overflow naming the tag, period and width. */
        long number(DatedTag.PeriodAt period, long counter) {
            if (counter > maxCounter) {
                throw new DatedNumberOverflowException(tag.bizTag(), period.key(), tag.width(), counter);
            }
            return period.prefix() + counter;
        }
    }
}
