package io.vesta.autoconfigure.actuate;

import io.vesta.segment.SegmentIdService;
import io.vesta.segment.SegmentView;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Segment mode's health: UP while every business tag in use loads its segments; DOWN, naming each tag and its
 * failure, while the last load of a tag failed (numbers in memory are still handed out until they run out).
 * Reads the service's state and runs no query itself: the DataSource's own health indicator covers the database.
 */
public class VestaSegmentsHealthIndicator extends AbstractHealthIndicator {

    private final SegmentIdService segments;

    public VestaSegmentsHealthIndicator(SegmentIdService segments) {
        super("Vesta segments health check failed");
        this.segments = segments;
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
        List<SegmentView> views = segments.segments();
        Map<String, Long> remaining = new LinkedHashMap<>();
        Map<String, String> failures = new LinkedHashMap<>();
        for (SegmentView view : views) {
            remaining.put(view.bizTag(), view.remainingInMemory());
            if (view.lastFailure() != null) {
                failures.put(view.bizTag(), view.lastFailure());
            }
        }
        builder.withDetail("table", segments.table()).withDetail("remaining", remaining);
        if (failures.isEmpty()) {
            builder.up();
            return;
        }
        builder.down().withDetail("failures", failures).withDetail("reason", "Segments of " + failures.keySet()
                + " cannot be loaded from " + segments.table() + "; their numbers in memory are handed out until they run out");
    }
}
