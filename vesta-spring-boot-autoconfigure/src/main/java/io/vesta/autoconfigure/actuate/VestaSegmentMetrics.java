package io.vesta.autoconfigure.actuate;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.vesta.segment.SegmentIdService;
import io.vesta.segment.SegmentView;

import java.util.function.ToLongFunction;

/**
 * Meters of segment mode, per business tag ({@code biz.tag}): segments loaded, loads that failed, calls that
 * waited for the database, and numbers left in memory. Tags appear on first use, so each tag's meters are
 * registered once its first segment is loaded; a tag that never loads (an unknown one) gets none. Read from the
 * service's own counters when a registry is scraped.
 */
public class VestaSegmentMetrics implements MeterBinder {

    private final SegmentIdService segments;

    public VestaSegmentMetrics(SegmentIdService segments) {
        this.segments = segments;
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        segments.addTagLoadedListener(bizTag -> bindTag(registry, bizTag));
    }

    private void bindTag(MeterRegistry registry, String bizTag) {
        Tags tags = Tags.of("biz.tag", bizTag);
        counter(registry, "vesta.segment.loads", "Segments loaded from the segment table", bizTag, tags, SegmentView::loads);
        counter(registry, "vesta.segment.loads.failed", "Segment loads that failed", bizTag, tags, SegmentView::failedLoads);
        counter(registry, "vesta.segment.waits", "Calls that found no number in memory and waited for the database",
                bizTag, tags, SegmentView::waits);
        Gauge.builder("vesta.segment.remaining", segments, s -> read(s, bizTag, SegmentView::remainingInMemory))
                .description("Numbers in memory not yet handed out: the rest of the segment in use and the next segment")
                .tags(tags).register(registry);
    }

    private void counter(MeterRegistry registry, String name, String description, String bizTag, Tags tags,
            ToLongFunction<SegmentView> field) {
        FunctionCounter.builder(name, segments, s -> read(s, bizTag, field)).description(description).tags(tags)
                .register(registry);
    }

    private static double read(SegmentIdService segments, String bizTag, ToLongFunction<SegmentView> field) {
        return segments.segment(bizTag).map(field::applyAsLong).orElse(0L);
    }
}
