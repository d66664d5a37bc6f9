package io.vesta.autoconfigure.actuate;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.vesta.EmbeddedIdService;
import io.vesta.autoconfigure.IssuingState;
import io.vesta.machine.MachineIdLease;
import io.vesta.time.TimeSource;

import java.time.Instant;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * Meters read from the generator's own counters when a registry is scraped, so issuing an ID costs nothing
 * extra: IDs issued, waits on a used-up sequence (count and time), clock steps back, how far the last
 * issued time lags behind the clock, and the time left before the time field runs out. Tagged with the machine ID, and the type and gen-method as {@code vesta.type}
 * and {@code vesta.gen-method} spell them: a central server has two generators, {@code rest} and {@code central-server}.
 * <p>Gauges of 1 or 0 say whether the generator can issue (what the {@code vesta} health indicator, and so readiness,
 * decides) and whether its clock is refused, so that an alert sees a state that a counter could only hint at; a leased
 * machine ID adds whether the lease is held and how long it has left, which falls below its renewal rhythm as soon as
 * renewals fail. A fallback machine ID adds whether IDs are issued under it now and how many were.
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
        Gauge.builder("vesta.issuing", this, m -> m.issuing() ? 1 : 0)
                .description("1 while the generator can issue IDs (what the vesta health indicator and readiness decide), 0 while not")
                .tags(tags).register(registry);
        Gauge.builder("vesta.clock.refused", idService, s -> s.clockRefusal().isPresent() ? 1 : 0)
                .description("1 while IDs are refused because the clock is behind the last issued ID beyond vesta.clock.max-backward-wait")
                .tags(tags).register(registry);
        // Only with a fallback configured, as the lease meters only with a lease: no series that could never move.
        if (idService.machineIdFallback() != null) {
            FunctionCounter.builder("vesta.machine-id.fallback.issued", idService, EmbeddedIdService::fallbackIdsIssued)
                    .description("IDs issued under the fallback machine ID (vesta.machine-id.fallback.value), in every spell on it")
                    .tags(tags).register(registry);
            Gauge.builder("vesta.machine-id.fallback.active", idService, s -> s.onFallback() ? 1 : 0)
                    .description("1 while IDs are issued under the fallback machine ID because the store cannot give a leased one, 0 while not")
                    .tags(tags).register(registry);
        }
        // A fixed machine ID (property, IP list, StatefulSet ordinal) has no lease that could run out: no series.
        if (idService.machineIdLease() != MachineIdLease.forever()) {
            Gauge.builder("vesta.lease.held", this, m -> m.leaseHeld() ? 1 : 0)
                    .description("1 while the machine ID's lease is held, 0 after it was lost or ran out").tags(tags)
                    .register(registry);
            TimeGauge.builder("vesta.lease.remaining", this, TimeUnit.MILLISECONDS, VestaMetrics::leaseRemainingMillis)
                    .description("Time left before the machine ID's lease runs out unless it is renewed; 0 while not held")
                    .tags(tags).register(registry);
        }
    }

    private boolean issuing() {
        return IssuingState.problem(idService, timeSource.currentTimeMillis()) == null;
    }

    /** Read from the service each time: after a loss it moves to the lease of the block it claimed next. */
    private boolean leaseHeld() {
        return idService.machineIdLease().isHeldAt(timeSource.currentTimeMillis());
    }

    private double leaseRemainingMillis() {
        MachineIdLease lease = idService.machineIdLease();
        long now = timeSource.currentTimeMillis();
        return lease.isHeldAt(now) ? lease.heldUntil() - now : 0;
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
