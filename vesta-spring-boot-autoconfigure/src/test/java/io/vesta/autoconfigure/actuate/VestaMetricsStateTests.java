package io.vesta.autoconfigure.actuate;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vesta.EmbeddedIdService;
import io.vesta.IdType;
import io.vesta.machine.MachineIdLease;
import io.vesta.machine.MachineIdProvider;
import io.vesta.machine.MachineIdRange;
import io.vesta.test.ManualTimeSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The state gauges the alerting rules of deploy/prometheus read: whether the generator issues, whether its clock is
 * refused, and the lease of a leased machine ID, held or not and its time left.
 */
class VestaMetricsStateTests {

    private static final Instant NOW = Instant.parse("2026-06-01T12:00:00Z");

    private final ManualTimeSource clock = new ManualTimeSource(NOW);
    private final MachineIdLease lease = new MachineIdLease(NOW.plusSeconds(30).toEpochMilli());
    private EmbeddedIdService service;

    @AfterEach
    void close() {
        if (service != null) {
            service.close();
        }
    }

    private EmbeddedIdService service(MachineIdProvider provider) {
        service = EmbeddedIdService.builder().type(IdType.MIN_GRANULARITY).timeSource(clock).machineIdProvider(provider)
                .build();
        return service;
    }

    private MeterRegistry bound(EmbeddedIdService ids) {
        MeterRegistry registry = new SimpleMeterRegistry();
        new VestaMetrics(ids, clock).bindTo(registry);
        return registry;
    }

    private static double gauge(MeterRegistry registry, String name) {
        return registry.get(name).gauge().value();
    }

    @Test
    void issuingAndClockRefusedFollowTheClockStepBackBeyondTheWaitedOutBound() {
        EmbeddedIdService ids = service(leased(lease));
        MeterRegistry registry = bound(ids);
        ids.genId();
        assertThat(gauge(registry, "vesta.issuing")).isEqualTo(1);
        assertThat(gauge(registry, "vesta.clock.refused")).isZero();

        clock.advance(Duration.ofMillis(-40));
        assertThat(gauge(registry, "vesta.issuing")).isZero();
        assertThat(gauge(registry, "vesta.clock.refused")).isEqualTo(1);

        clock.advance(Duration.ofMillis(41));
        assertThat(gauge(registry, "vesta.issuing")).isEqualTo(1);
        assertThat(gauge(registry, "vesta.clock.refused")).isZero();
    }

    @Test
    void leaseGaugesCountDownUntilARenewalAndDropToZeroWhenTheLeaseIsLost() {
        EmbeddedIdService ids = service(leased(lease));
        MeterRegistry registry = bound(ids);
        assertThat(gauge(registry, "vesta.lease.held")).isEqualTo(1);
        assertThat(registry.get("vesta.lease.remaining").timeGauge().value(TimeUnit.SECONDS)).isEqualTo(30);

        clock.advance(Duration.ofSeconds(25));
        assertThat(registry.get("vesta.lease.remaining").timeGauge().value(TimeUnit.SECONDS)).isEqualTo(5);
        lease.renew(clock.now().plusSeconds(30).toEpochMilli());
        assertThat(registry.get("vesta.lease.remaining").timeGauge().value(TimeUnit.SECONDS)).isEqualTo(30);

        lease.revoke("the row was taken over");
        assertThat(gauge(registry, "vesta.lease.held")).isZero();
        assertThat(registry.get("vesta.lease.remaining").timeGauge().value()).isZero();
        assertThat(gauge(registry, "vesta.issuing")).as("not ready without the lease").isZero();
    }

    @Test
    void aFixedMachineIdHasNoLeaseSeries() {
        MeterRegistry registry = bound(service(leased(MachineIdLease.forever())));

        assertThat(registry.find("vesta.lease.held").meter()).isNull();
        assertThat(registry.find("vesta.lease.remaining").meter()).isNull();
        assertThat(gauge(registry, "vesta.issuing")).isEqualTo(1);
    }

    @Test
    void prometheusNamesTheGaugesAsTheAlertingRulesDo() {
        PrometheusMeterRegistry registry = Scrapes.prometheusRegistry();
        new VestaMetrics(service(leased(lease)), clock).bindTo(registry);

        assertThat(registry.scrape()).contains("vesta_issuing{gen_method=\"embedded\",machine=\"11\",type=\"min-granularity\"} 1.0")
                .contains("vesta_clock_refused{").contains("vesta_lease_held{")
                .contains("vesta_lease_remaining_seconds{gen_method=\"embedded\",machine=\"11\",type=\"min-granularity\"} 30.0");
    }

    private static MachineIdProvider leased(MachineIdLease lease) {
        return new MachineIdProvider() {
            @Override
            public long acquire(MachineIdRange range, int blockSize) {
                MachineIdProvider.refuseBlocks(this, blockSize);
                return 11;
            }

            @Override
            public String describe() {
                return "leased";
            }

            @Override
            public MachineIdLease lease() {
                return lease;
            }
        };
    }
}
