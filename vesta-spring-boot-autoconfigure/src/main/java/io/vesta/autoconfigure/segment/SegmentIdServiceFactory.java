package io.vesta.autoconfigure.segment;

import static io.vesta.autoconfigure.PropertyChecks.checkDuration;
import static io.vesta.autoconfigure.PropertyChecks.checkLong;

import io.vesta.autoconfigure.InvalidVestaPropertyException;
import io.vesta.segment.SegmentIdService;
import io.vesta.segment.SegmentSchema;
import io.vesta.time.TimeSource;

import javax.sql.DataSource;
import java.time.Duration;

/**
 * Turns {@link VestaSegmentProperties} into a {@link SegmentIdService}, checking each property against what the
 * engine allows so that a bad value fails start-up with the property's own name, not the builder's.
 */
final class SegmentIdServiceFactory {

    /** What the engine accepts as a table name; it checks the name itself, this is the text for the report. */
    static final String TABLE_ALLOWED = "an unquoted SQL identifier (letters, digits and _, not starting with a digit, "
            + "at most 63 characters), optionally schema.table";

    private SegmentIdServiceFactory() {
    }

    static SegmentIdService create(VestaSegmentProperties properties, DataSource dataSource, TimeSource timeSource) {
        double refillThreshold = properties.getRefillThreshold();
        if (!(refillThreshold >= 0.0 && refillThreshold < 1.0)) {
            throw new InvalidVestaPropertyException("vesta.segment.refill-threshold", refillThreshold,
                    "a share of the segment at least 0.0 and below 1.0, such as 0.1", "is out of range");
        }
        SegmentIdService.Builder builder = SegmentIdService.builder()
                .dataSource(dataSource)
                .timeSource(timeSource)
                .table(properties.getTable())
                .refillThreshold(refillThreshold)
                .targetDuration(checkDuration("vesta.segment.target-duration", properties.getTargetDuration(),
                        Duration.ofMillis(1), Duration.ofDays(1)))
                .maxStep(checkStep("vesta.segment.max-step", properties.getMaxStep()))
                .autoCreate(properties.isAutoCreate())
                .defaultStep(checkStep("vesta.segment.default-step", properties.getDefaultStep()))
                .retryInterval(checkDuration("vesta.segment.retry-interval", properties.getRetryInterval(),
                        Duration.ZERO, Duration.ofMinutes(1)))
                .loaderThreads((int) checkLong("vesta.segment.loader-threads", properties.getLoaderThreads(), 1, 64));
        SegmentIdService service;
        try {
            service = builder.build();
        } catch (IllegalArgumentException e) {
            // Every other setting was checked above, under its property's name: what is left is the table name,
            // whose rule lives in the engine alone.
            if (e.getMessage() != null && e.getMessage().startsWith("table ")) {
                throw new InvalidVestaPropertyException("vesta.segment.table", properties.getTable(), TABLE_ALLOWED,
                        "is not a table name the segment allocator can use", e);
            }
            throw e;
        }
        if (properties.isInitializeSchema()) {
            try {
                SegmentSchema.initialize(dataSource, properties.getTable());
            } catch (IllegalArgumentException e) {
                // The table name passed above, so this is a database Vesta has no script for.
                service.close();
                throw new InvalidVestaPropertyException("vesta.segment.initialize-schema", true,
                        "false, with the table created by hand or by migrations from " + SegmentSchema.POSTGRESQL
                                + ", " + SegmentSchema.MYSQL + " or " + SegmentSchema.H2,
                        "cannot be used here: " + e.getMessage(), e);
            } catch (RuntimeException e) {
                service.close();
                throw e;
            }
        }
        return service;
    }

    private static int checkStep(String property, int value) {
        return (int) checkLong(property, value, 1, SegmentIdService.STEP_LIMIT);
    }
}
