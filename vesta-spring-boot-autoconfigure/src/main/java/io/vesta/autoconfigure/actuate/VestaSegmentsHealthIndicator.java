package io.vesta.autoconfigure.actuate;

import io.vesta.segment.SegmentIdService;
import io.vesta.segment.SegmentView;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Segment mode's health: UP while every business tag in use loads its segments; DOWN, naming the failing tags and
 * their failures, while the last load of a tag failed (numbers in memory are still handed out until they run out).
 * Reads the service's state and runs no query itself: the DataSource's own health indicator covers the database.
 *
 * <p>A bounded summary, whatever the number of tags: how many tags hold buffers (and the most that may), how many
 * buffers were dropped, the numbers in memory of the {@value #SHOWN} tags with the fewest left, and at most
 * {@value #SHOWN} failing tags (with how many fail in all). The full list is {@code GET /vesta/segments}.
 */
public class VestaSegmentsHealthIndicator extends AbstractHealthIndicator {

    /** The most tags named in each detail. */
    static final int SHOWN = 10;

    private final SegmentIdService segments;

    public VestaSegmentsHealthIndicator(SegmentIdService segments) {
        super("Vesta segments health check failed");
        this.segments = segments;
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
        List<SegmentView> views = segments.segments();
        Map<String, Long> remaining = new LinkedHashMap<>();
        views.stream().filter(view -> view.loads() > 0)
                .sorted(Comparator.comparingLong(SegmentView::remainingInMemory).thenComparing(SegmentView::bizTag))
                .limit(SHOWN).forEach(view -> remaining.put(view.bizTag(), view.remainingInMemory()));
        List<SegmentView> failing = views.stream().filter(view -> view.lastFailure() != null).toList();
        Map<String, String> failures = new LinkedHashMap<>();
        failing.stream().limit(SHOWN).forEach(view -> failures.put(view.bizTag(), view.lastFailure()));
        builder.withDetail("table", segments.table()).withDetail("tags", views.size())
                .withDetail("maxBufferedTags", segments.maxBufferedTags())
                .withDetail("droppedBuffers", segments.droppedBuffers()).withDetail("remaining", remaining);
        if (failing.isEmpty()) {
            builder.up();
            return;
        }
        builder.down().withDetail("failing", failing.size()).withDetail("failures", failures).withDetail("reason",
                "Segments of " + failures.keySet() + (failing.size() > SHOWN ? " and " + (failing.size() - SHOWN)
                        + " more tags" : "") + " cannot be loaded from " + segments.table()
                        + "; their numbers in memory are handed out until they run out");
    }
}
