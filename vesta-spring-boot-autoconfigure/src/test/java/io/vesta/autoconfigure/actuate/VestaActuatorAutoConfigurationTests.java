package io.vesta.autoconfigure.actuate;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vesta.DecodedId;
import io.vesta.EmbeddedIdService;
import io.vesta.IdService;
import io.vesta.IdType;
import io.vesta.autoconfigure.VestaAutoConfiguration;
import io.vesta.client.RemoteIdService;
import io.vesta.segment.SegmentIdService;
import io.vesta.test.ManualTimeSource;
import io.vesta.time.TimeSource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

class VestaActuatorAutoConfigurationTests {

    private static final Instant NOW = Instant.parse("2026-03-01T10:00:00.250Z");
    /** Just after the last millisecond min-granularity holds with the default epoch. */
    private static final Instant MIN_GRANULARITY_END = Instant.parse("2049-11-03T11:53:47.776Z");

    private final ManualTimeSource clock = new ManualTimeSource(NOW);

    private final ApplicationContextRunner withoutRegistry = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(VestaAutoConfiguration.class, EndpointAutoConfiguration.class,
                    VestaEndpointAutoConfiguration.class, VestaHealthContributorAutoConfiguration.class,
                    MetricsAutoConfiguration.class, VestaMetricsAutoConfiguration.class))
            .withBean(TimeSource.class, () -> clock)
            // The test's clock writes marks at its own times: they stay out of the directory other tests share.
            .withPropertyValues("vesta.machine-id.value=12", "vesta.type=min-granularity", "vesta.time-store.enabled=false");

    private final ApplicationContextRunner runner = withoutRegistry.withBean(SimpleMeterRegistry.class);

    @Test
    void livenessIsUpWithAFixedMachineIdAndItsTimeoutIsCheckedNamingTheProperty() {
        runner.run(context -> assertThat(context.getBean(VestaLivenessHealthIndicator.class).health(true).getStatus())
                .isEqualTo(org.springframework.boot.health.contributor.Status.UP));
        runner.withPropertyValues("vesta.machine-id.liveness-timeout=500ms")
                .run(context -> assertThat(context).getFailure().rootCause()
                        .isInstanceOfSatisfying(io.vesta.InvalidSettingException.class, e -> {
                            assertThat(e.setting()).isEqualTo("vesta.machine-id.liveness-timeout");
                            assertThat(e.getMessage()).contains("500ms").contains("a duration in [1000ms, 86400000ms]");
                        }));
    }

    @Test
    void endpointIsThereOnlyWhenExposedAsBootsOwnAre() {
        runner.run(context -> assertThat(context).doesNotHaveBean(VestaEndpoint.class));
        runner.withPropertyValues("management.endpoints.web.exposure.include=vesta")
                .run(context -> assertThat(context).hasSingleBean(VestaEndpoint.class));
    }

    @Test
    void endpointShowsTheNodesIdentity() {
        runner.withPropertyValues("management.endpoints.web.exposure.include=vesta").run(context -> {
            context.getBean(IdService.class).genIds(3);
            Map<String, Object> identity = context.getBean(VestaEndpoint.class).identity();
            assertThat(identity).containsEntry("type", IdType.MIN_GRANULARITY).containsEntry("machineId", 12L)
                    .containsEntry("machineIdSource", "property").containsEntry("idsIssued", 3L)
                    .containsEntry("lastIssuedTime", NOW).containsKeys("mode", "genMethod", "version", "epoch", "sequencer");
        });
    }

    @Test
    void endpointHealthAndMetersShowTheBlockOfMachineIds() {
        runner.withPropertyValues("management.endpoints.web.exposure.include=vesta", "vesta.machine-id.value=16",
                "vesta.machine-id.block-size=8").run(context -> {
                    long[] ids = context.getBean(IdService.class).genIds(20);
                    assertThat(context.getBean(IdService.class).expId(ids[9]).machine()).isEqualTo(17);
                    Map<String, Object> block = Map.of("first", 16L, "last", 23L, "size", 8);
                    assertThat(context.getBean(VestaEndpoint.class).identity()).containsEntry("machineId", 16L)
                            .containsEntry("machineIdBlock", block);
                    Health health = context.getBean("vestaHealthIndicator", HealthIndicator.class).health();
                    assertThat(health.getDetails()).containsEntry("machineIdBlock", block);
                    MeterRegistry registry = context.getBean(MeterRegistry.class);
                    assertThat(registry.get("vesta.ids.issued").tag("machine", "16-23").functionCounter().count())
                            .isEqualTo(20);
                });
    }

    @Test
    void endpointDecodesAnIdIntoItsFieldsAndTime() {
        runner.withPropertyValues("management.endpoints.web.exposure.include=vesta").run(context -> {
            long id = context.getBean(IdService.class).genId();
            DecodedId decoded = context.getBean(VestaEndpoint.class).decode(Long.toString(id));
            assertThat(decoded.id()).isEqualTo(id);
            assertThat(decoded.idString()).isEqualTo(Long.toString(id));
            assertThat(decoded.machine()).isEqualTo(12);
            assertThat(decoded.idType()).isEqualTo(IdType.MIN_GRANULARITY);
            assertThat(decoded.instant()).isEqualTo(NOW);

            long versionOne = context.getBean(IdService.class).makeId(1, 1, 0, 5, 6, 7);
            DecodedId negative = context.getBean(VestaEndpoint.class).decode(Long.toUnsignedString(versionOne));
            assertThat(negative.id()).isEqualTo(versionOne).isNegative();
            assertThat(negative.version()).isEqualTo(1);
            assertThat(negative.idString()).isEqualTo(Long.toString(versionOne));
            assertThat(context.getBean(VestaEndpoint.class).decode(Long.toString(versionOne)).seq()).isEqualTo(6);

            assertThatExceptionOfType(InvalidEndpointRequestException.class)
                    .isThrownBy(() -> context.getBean(VestaEndpoint.class).decode("12abc"))
                    .withMessageContaining("id must be a 64-bit integer");
        });
    }

    /**
     * A node that has issued nothing yet can issue: UP, so that a readiness probe lets traffic in. It used to fail
     * the check on the missing last issued time, which kept a fresh server out of its load balancer for good.
     */
    @Test
    void healthIsUpBeforeTheFirstId() {
        runner.run(context -> {
            Health health = context.getBean("vestaHealthIndicator", HealthIndicator.class).health();
            assertThat(health.getStatus()).isEqualTo(Status.UP);
            assertThat(health.getDetails()).containsEntry("machineId", 12L).doesNotContainKey("lastIssuedTime");
        });
    }

    @Test
    void healthIsUpWhileIdsCanBeIssuedAndDownWhileTheClockIsTooFarBack() {
        runner.run(context -> {
            HealthIndicator health = context.getBean("vestaHealthIndicator", HealthIndicator.class);
            IdService ids = context.getBean(IdService.class);
            ids.genId();
            assertThat(health.health().getStatus()).isEqualTo(Status.UP);

            clock.advance(Duration.ofMillis(-40));
            Health down = health.health();
            assertThat(down.getStatus()).isEqualTo(Status.DOWN);
            assertThat(down.getDetails()).containsEntry("machineId", 12L);
            assertThat((String) down.getDetails().get("reason"))
                    .startsWith("The clock is 40 ms behind the last issued ID")
                    .contains("beyond the 5 ms that are waited out (vesta.clock.max-backward-wait)");

            clock.advance(Duration.ofMillis(41));
            assertThat(health.health().getStatus()).isEqualTo(Status.UP);
        });
    }

    @Test
    void healthEndpointAndGaugeShowTheTimeLeftBeforeTheTimeFieldRunsOut() {
        runner.withPropertyValues("management.endpoints.web.exposure.include=vesta").run(context -> {
            long left = Duration.between(NOW, MIN_GRANULARITY_END).toSeconds();
            Health health = context.getBean("vestaHealthIndicator", HealthIndicator.class).health();
            assertThat(health.getDetails()).containsEntry("timeFieldEnd", MIN_GRANULARITY_END.minusMillis(1))
                    .containsEntry("timeRemainingSeconds", left).doesNotContainKey("timeFieldWarning");
            assertThat(context.getBean(VestaEndpoint.class).identity())
                    .containsEntry("timeFieldEnd", MIN_GRANULARITY_END.minusMillis(1))
                    .containsEntry("timeRemainingSeconds", left).doesNotContainKey("timeFieldWarning");
            TimeGauge remaining = context.getBean(MeterRegistry.class).get("vesta.time.remaining").tag("machine", "12")
                    .timeGauge();
            assertThat(remaining.baseTimeUnit()).isEqualTo(TimeUnit.SECONDS);
            assertThat(remaining.value(TimeUnit.MILLISECONDS)).isEqualTo(Duration.between(NOW, MIN_GRANULARITY_END).toMillis());
            clock.advance(Duration.ofDays(1));
            assertThat(remaining.value(TimeUnit.MILLISECONDS))
                    .isEqualTo(Duration.between(NOW.plus(Duration.ofDays(1)), MIN_GRANULARITY_END).toMillis());
        });
    }

    @Test
    void underAYearLeftHealthAndEndpointCarryAWarningThenHealthIsDownOnceItRanOut() {
        clock.set(MIN_GRANULARITY_END.minus(Duration.ofDays(200)));
        runner.withPropertyValues("management.endpoints.web.exposure.include=vesta").run(context -> {
            HealthIndicator indicator = context.getBean("vestaHealthIndicator", HealthIndicator.class);
            Health health = indicator.health();
            assertThat(health.getStatus()).isEqualTo(Status.UP);
            assertThat((String) health.getDetails().get("timeFieldWarning"))
                    .contains("runs out at 2049-11-03T11:53:47.775Z (200 days left)");
            assertThat(context.getBean(VestaEndpoint.class).identity()).containsKey("timeFieldWarning");

            clock.set(MIN_GRANULARITY_END);
            Health down = indicator.health();
            assertThat(down.getStatus()).isEqualTo(Status.DOWN);
            assertThat(down.getDetails()).containsEntry("timeRemainingSeconds", 0L);
            assertThat((String) down.getDetails().get("reason")).startsWith("The time field of MIN_GRANULARITY IDs ran out");
        });
    }

    @Test
    void metersFollowTheGeneratorsCounters() {
        runner.run(context -> {
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            EmbeddedIdService ids = context.getBean(EmbeddedIdService.class);
            ids.genIds(1024 + 10); // one used-up millisecond: one wait
            clock.advance(Duration.ofMillis(-3));
            ids.genId(); // a small step back, waited out
            clock.advance(Duration.ofMillis(500));

            assertThat(registry.get("vesta.ids.issued").tag("machine", "12").functionCounter().count()).isEqualTo(1035);
            FunctionTimer waits = registry.get("vesta.sequence.exhausted.waits").functionTimer();
            assertThat(waits.count()).isEqualTo(1);
            assertThat(waits.totalTime(TimeUnit.NANOSECONDS)).isNotNegative();
            assertThat(registry.get("vesta.clock.backward.steps").functionCounter().count()).isEqualTo(1);
            TimeGauge lag = registry.get("vesta.clock.lag").timeGauge();
            assertThat(lag.value(TimeUnit.MILLISECONDS)).isEqualTo(500);
        });
    }

    @Test
    void withoutActuatorThereIsNoEndpointAndTheIdServiceStillWorks() {
        runner.withPropertyValues("management.endpoints.web.exposure.include=vesta")
                .withClassLoader(new FilteredClassLoader(Endpoint.class))
                .run(context -> {
                    assertThat(context).hasNotFailed().doesNotHaveBean(VestaEndpoint.class);
                    assertThat(context).hasSingleBean(IdService.class).hasSingleBean(VestaHealthIndicator.class);
                });
    }

    @Test
    void withoutHealthSupportThereIsNoHealthIndicator() {
        runner.withClassLoader(new FilteredClassLoader(HealthIndicator.class))
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(VestaHealthIndicator.class)
                        .hasSingleBean(IdService.class));
    }

    @Test
    void withoutMicrometerThereAreNoMeters() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(VestaAutoConfiguration.class, VestaMetricsAutoConfiguration.class))
                .withPropertyValues("vesta.machine-id.value=12")
                .withClassLoader(new FilteredClassLoader(MeterBinder.class))
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(VestaMetrics.class)
                        .hasSingleBean(IdService.class));
    }

    @Test
    void withoutTheClientAndJdbcModulesEmbeddedHealthAndMetersStillWork() {
        runner.withClassLoader(new FilteredClassLoader(RemoteIdService.class, SegmentIdService.class))
                .run(context -> assertThat(context).hasNotFailed().hasSingleBean(VestaHealthIndicator.class)
                        .hasSingleBean(VestaMetrics.class).doesNotHaveBean(VestaClientMetrics.class)
                        .doesNotHaveBean(VestaSegmentMetrics.class));
    }

    @Test
    void healthIndicatorCanBeSwitchedOff() {
        runner.withPropertyValues("management.health.vesta.enabled=false")
                .run(context -> assertThat(context).doesNotHaveBean(VestaHealthIndicator.class));
    }

    @Test
    void metersAreTaggedWithMachineTypeAndGenMethodAsThePropertiesSpellThem() {
        runner.run(context -> {
            FunctionCounter issued = context.getBean(MeterRegistry.class).get("vesta.ids.issued").functionCounter();
            assertThat(issued.getId().getTag("type")).isEqualTo("min-granularity");
            assertThat(issued.getId().getTag("gen.method")).isEqualTo("embedded");
            assertThat(issued.getId().getTag("machine")).isEqualTo("12");
        });
    }

    @Test
    void prometheusScrapesTheGeneratorsMetersUnderConventionalNamesWithoutDoubledUnits() {
        withoutRegistry.withBean(PrometheusMeterRegistry.class, Scrapes::prometheusRegistry).run(context -> {
            context.getBean(IdService.class).genIds(3);
            clock.advance(Duration.ofMillis(250));

            String scrape = Scrapes.scrape(context);
            assertThat(scrape).contains("vesta_ids_issued_total{gen_method=\"embedded\",machine=\"12\",type=\"min-granularity\"} 3.0")
                    .contains("vesta_sequence_exhausted_waits_seconds_count{", "vesta_sequence_exhausted_waits_seconds_sum{")
                    .contains("vesta_clock_backward_steps_total{")
                    .contains("vesta_clock_lag_seconds{gen_method=\"embedded\",machine=\"12\",type=\"min-granularity\"} 0.25")
                    .contains("vesta_time_remaining_seconds{gen_method=\"embedded\",machine=\"12\",type=\"min-granularity\"} "
                            + (double) Duration.between(clock.now(), MIN_GRANULARITY_END).toMillis() / 1000)
                    .doesNotContain("_ids_total", "MIN_GRANULARITY");
        });
    }
}
