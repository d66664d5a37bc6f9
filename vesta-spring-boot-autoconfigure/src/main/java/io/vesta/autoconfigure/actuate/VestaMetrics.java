package io.vesta.autoconfigure.actuate;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.vesta.EmbeddedIdService;
import io.vesta.time.TimeSource;

import java.time.Instant;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * Meters read from the generator's own counters when a registry is scraped, so issuing an ID costs nothing
 * extra: IDs issued, waits on a used-up sequence (count and time), clock steps back, how far the last
 * issued time lags behind the clock, and the time left before the time field runs out. Tagged with the machine ID, and the type and gen-method as {@code vesta.type}
 * and {@code vesta.gen-method} spell them: a central server has two generators, {@code rest} and {@code central-server}.
 */
public class VestaMetrics implements MeterBinder {

    private final EmbeddedIdService idService;
    private final TimeSource timeSource;

    public VestaMetrics(EmbeddedIdService idService, TimeSource timeSource) {
        this.idService = idService;
        this.timeSource = timeSource;
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        // A block is tagged as its range ("924-931"), so the series of a single machine ID keep their tag ("924").
        Tags tags = Tags.of("machine", idService.machineIdBlock().toString(), "type", propertyValue(idService.type()),
                "gen.method", propertyValue(idService.genMethod()));
        // No base unit: "IDs" is what the name counts, and Prometheus would append it (vesta_ids_issued_ids_total).
        FunctionCounter.builder("vesta.ids.issued", idService, EmbeddedIdService::idsIssued)
                .description("IDs issued by this node").tags(tags).register(registry);
        FunctionTimer.builder("vesta.sequence.exhausted.waits", idService, EmbeddedIdService::exhaustedWaits,
                        s -> s.exhaustedWaitTime().toNanos(), TimeUnit.NANOSECONDS)
                .description("Waits for the next time unit after a unit's sequence was used up").tags(tags).register(registry);
        FunctionCounter.builder("vesta.clock.backward.steps", idService, EmbeddedIdService::clockBackwardSteps)
                .description("Times the clock was seen behind the last issued ID").tags(tags).register(registry);
        TimeGauge.builder("vesta.clock.lag", this, TimeUnit.MILLISECONDS, VestaMetrics::lagMillis)
                .description("How far the time of the last issued ID lags behind the clock").tags(tags).register(registry);
        // Seconds as the base unit, as every TimeGauge: Prometheus shows vesta_time_remaining_seconds.
        TimeGauge.builder("vesta.time.remaining", idService, TimeUnit.MILLISECONDS, s -> s.timeRemaining().toMillis())
                .description("Time left before the time field runs out for this type and epoch; no ID is issued after")
                .tags(tags).register(registry);
    }

    private double lagMillis() {
        Instant last = idService.lastIssuedTime();
        return last == null ? Double.NaN : timeSource.currentTimeMillis() - last.toEpochMilli();
    }

    /** An enum constant as a property spells it, {@code MAX_PEAK} as {@code max-peak}. */
    static String propertyValue(Enum<?> constant) {
        return constant.name().toLowerCase(Locale.ROOT).replace('_', '-');
    }
}
