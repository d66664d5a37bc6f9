package io.vesta.autoconfigure.actuate;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.vesta.segment.SegmentIdService;
import io.vesta.segment.SegmentView;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToLongFunction;

/**
 * Meters of segment mode, per business tag ({@code biz.tag}): segments loaded, loads that failed, calls that
 * waited for the database, and numbers left in memory. Tags appear on first use, so each tag's meters are
 * registered once its first segment is loaded; a tag that never loads (an unknown one) gets none. They are removed
 * when the service drops the tag's buffers (idle, or beyond {@code vesta.segment.max-buffered-tags}), so at most that
 * many tags have meters; a counter of a tag loaded again starts from zero. Read from the service's own counters when
 * a registry is scraped.
 */
public class VestaSegmentMetrics implements MeterBinder {

    private final SegmentIdService segments;

    public VestaSegmentMetrics(SegmentIdService segments) {
        this.segments = segments;
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        Map<String, List<Meter>> meters = new HashMap<>();
        // One lock per registry orders a tag's registration and removal: a tag dropped and loaded again at once
        // keeps its meters (the removal sees it held again), one dropped for good loses them.
        Object lock = new Object();
        segments.addTagLoadedListener(bizTag -> {
            synchronized (lock) {
                meters.computeIfAbsent(bizTag, tag -> bindTag(registry, tag));
            }
        });
        segments.addTagDroppedListener(bizTag -> {
            synchronized (lock) {
                if (segments.segment(bizTag).isEmpty()) {
                    List<Meter> dropped = meters.remove(bizTag);
                    if (dropped != null) {
                        dropped.forEach(registry::remove);
                    }
                }
            }
        });
    }

    private List<Meter> bindTag(MeterRegistry registry, String bizTag) {
        Tags tags = Tags.of("biz.tag", bizTag);
        return List.of(
                counter(registry, "vesta.segment.loads", "Segments loaded from the segment table", bizTag, tags,
                        SegmentView::loads),
                counter(registry, "vesta.segment.loads.failed", "Segment loads that failed", bizTag, tags,
                        SegmentView::failedLoads),
                counter(registry, "vesta.segment.waits", "Calls that found no number in memory and waited for the database",
                        bizTag, tags, SegmentView::waits),
                Gauge.builder("vesta.segment.remaining", segments, s -> read(s, bizTag, SegmentView::remainingInMemory))
                        .description("Numbers in memory not yet handed out: the rest of the segment in use and the next segment")
                        .tags(tags).register(registry));
    }

    private Meter counter(MeterRegistry registry, String name, String description, String bizTag, Tags tags,
            ToLongFunction<SegmentView> field) {
        return FunctionCounter.builder(name, segments, s -> read(s, bizTag, field)).description(description).tags(tags)
                .register(registry);
    }

    private static double read(SegmentIdService segments, String bizTag, ToLongFunction<SegmentView> field) {
        return segments.segment(bizTag).map(field::applyAsLong).orElse(0L);
    }
}
