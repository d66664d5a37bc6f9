package io.vesta.autoconfigure.actuate;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vesta.autoconfigure.VestaAutoConfiguration;
import io.vesta.autoconfigure.segment.VestaSegmentAutoConfiguration;
import io.vesta.segment.SegmentIdService;
import io.vesta.segment.SegmentSchema;
import io.vesta.segment.UnknownBizTagException;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;

import javax.sql.DataSource;
import java.util.Map;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/** Segment mode's health indicator ({@code vestaSegments}) and meters, on a real H2 database and a Prometheus registry. */
class VestaSegmentsActuatorTests {

    private final String table = "vesta_segment_" + UUID.randomUUID().toString().replace("-", "").substring(0, 10);

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class, VestaAutoConfiguration.class,
                    VestaSegmentAutoConfiguration.class, VestaHealthContributorAutoConfiguration.class,
                    MetricsAutoConfiguration.class, VestaMetricsAutoConfiguration.class))
            .withBean(PrometheusMeterRegistry.class, Scrapes::prometheusRegistry)
            .withPropertyValues("spring.datasource.url=jdbc:h2:mem:" + table + ";DB_CLOSE_DELAY=-1",
                    "vesta.machine-id.value=12", "vesta.time-store.enabled=false", "vesta.segment.enabled=true",
                    "vesta.segment.table=" + table);

    /** The table from the shipped script, and the tag {@code orders} with numbers from 1 in steps of {@code step}. */
    private JdbcTemplate tableWithOrders(ApplicationContext context, int step) {
        DataSource dataSource = context.getBean(DataSource.class);
        SegmentSchema.initialize(dataSource, table);
        JdbcTemplate jdbc = new JdbcTemplate(dataSource);
        jdbc.update("INSERT INTO " + table + " (biz_tag, max_id, step, description) VALUES ('orders', 1, ?, 'Orders')", step);
        return jdbc;
    }

    private static HealthIndicator health(ApplicationContext context) {
        return context.getBean("vestaSegmentsHealthIndicator", HealthIndicator.class);
    }

    @Test
    void healthIsUpWhileEveryTagLoadsAndShowsTheNumbersInMemory() {
        runner.run(context -> {
            tableWithOrders(context, 100);
            context.getBean(SegmentIdService.class).nextIds("orders", 10);

            Health health = health(context).health();
            assertThat(health.getStatus()).isEqualTo(Status.UP);
            assertThat(health.getDetails()).containsEntry("table", table).containsEntry("remaining", Map.of("orders", 90L));
        });
    }

    @Test
    @SuppressWarnings("unchecked")
    void healthIsDownNamingTheTagWhileItsSegmentsCannotLoadAndUpOnceTheyLoadAgain() {
        runner.run(context -> {
            JdbcTemplate jdbc = tableWithOrders(context, 10);
            SegmentIdService segments = context.getBean(SegmentIdService.class);
            segments.nextId("orders");

            jdbc.execute("ALTER TABLE " + table + " RENAME TO " + table + "_away");
            // Past the refill threshold the next segment is loaded in the background, and fails.
            segments.nextIds("orders", 9);
            Scrapes.await(() -> segments.segment("orders").orElseThrow().lastFailure() != null, "the background load to fail");

            Health down = health(context).health();
            assertThat(down.getStatus()).isEqualTo(Status.DOWN);
            assertThat((Map<String, Object>) down.getDetails().get("failures")).containsOnlyKeys("orders");
            assertThat((String) down.getDetails().get("reason")).startsWith("Segments of [orders] cannot be loaded from " + table);

            jdbc.execute("ALTER TABLE " + table + "_away RENAME TO " + table);
            assertThat(segments.nextId("orders")).isEqualTo(11);
            assertThat(health(context).health().getStatus()).isEqualTo(Status.UP);
        });
    }

    @Test
    void anUnknownTagLeavesHealthUpAndGetsNoMeters() {
        runner.run(context -> {
            tableWithOrders(context, 10);
            assertThatExceptionOfType(UnknownBizTagException.class)
                    .isThrownBy(() -> context.getBean(SegmentIdService.class).nextId("oders"));

            assertThat(health(context).health().getStatus()).isEqualTo(Status.UP);
            assertThat(context.getBean(MeterRegistry.class).find("vesta.segment.loads").meters()).isEmpty();
        });
    }

    @Test
    void metersCountLoadsFailedLoadsAndWaitsPerTagAndTheNumbersLeft() {
        // A failed load is retried after retry-interval: long enough here that the count is read before a retry.
        runner.withPropertyValues("vesta.segment.retry-interval=1m").run(context -> {
            JdbcTemplate jdbc = tableWithOrders(context, 10);
            SegmentIdService segments = context.getBean(SegmentIdService.class);
            segments.nextIds("orders", 5);
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            assertThat(registry.get("vesta.segment.waits").tag("biz.tag", "orders").functionCounter().count())
                    .as("the first call for a tag waits for the database").isEqualTo(1);
            Scrapes.await(() -> segments.segment("orders").orElseThrow().nextReady(), "the next segment to load");
            assertThat(registry.get("vesta.segment.loads").tag("biz.tag", "orders").functionCounter().count())
                    .as("the first segment, and the next one loaded in the background").isEqualTo(2);
            assertThat(registry.get("vesta.segment.remaining").tag("biz.tag", "orders").gauge().value())
                    .as("5 of the first segment, and the next one (its step doubled to 20)").isEqualTo(5 + 20);

            jdbc.execute("DROP TABLE " + table);
            segments.nextIds("orders", 25);
            Scrapes.await(() -> segments.segment("orders").orElseThrow().failedLoads() > 0, "a load to fail");
            assertThat(registry.get("vesta.segment.loads.failed").tag("biz.tag", "orders").functionCounter().count()).isEqualTo(1);
            assertThat(registry.get("vesta.segment.remaining").tag("biz.tag", "orders").gauge().value()).isZero();
        });
    }

    @Test
    void metersAndHealthStayBoundedWhateverTheNumberOfTags() {
        runner.withPropertyValues("vesta.segment.auto-create=true", "vesta.segment.max-buffered-tags=3").run(context -> {
            tableWithOrders(context, 10);
            SegmentIdService segments = context.getBean(SegmentIdService.class);
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            for (int tag = 0; tag < 40; tag++) {
                segments.nextId("tag-" + tag);
            }

            assertThat(registry.find("vesta.segment.loads").functionCounters()).hasSize(3);
            assertThat(registry.find("vesta.segment.remaining").gauges()).hasSize(3);
            assertThat(registry.find("vesta.segment.remaining").tag("biz.tag", "tag-39").gauge()).isNotNull();
            assertThat(registry.find("vesta.segment.remaining").tag("biz.tag", "tag-0").gauge()).isNull();
            Health health = health(context).health();
            assertThat(health.getStatus()).isEqualTo(Status.UP);
            assertThat(health.getDetails()).containsEntry("tags", 3).containsEntry("maxBufferedTags", 3)
                    .containsEntry("droppedBuffers", 37L);
            assertThat((Map<?, ?>) health.getDetails().get("remaining")).hasSize(3);
            // A dropped tag that is used again gets its meters back.
            segments.nextId("tag-0");
            assertThat(registry.find("vesta.segment.remaining").tag("biz.tag", "tag-0").gauge()).isNotNull();
            assertThat(registry.find("vesta.segment.remaining").gauges()).hasSize(3);
        });
    }

    @Test
    void healthNamesAtMostTenFailingTagsAndCountsThemAll() {
        runner.withPropertyValues("vesta.segment.auto-create=true", "vesta.segment.default-step=10",
                "vesta.segment.retry-interval=1m").run(context -> {
            JdbcTemplate jdbc = tableWithOrders(context, 10);
            SegmentIdService segments = context.getBean(SegmentIdService.class);
            for (int tag = 0; tag < 25; tag++) {
                segments.nextId("tag-" + tag);
            }
            jdbc.execute("DROP TABLE " + table);
            for (int tag = 0; tag < 25; tag++) {
                int failing = tag;
                // More than both segments hold: the next load fails, and the tag is left failing.
                assertThatThrownBy(() -> segments.nextIds("tag-" + failing, 1000)).isInstanceOf(RuntimeException.class);
            }

            Health down = health(context).health();
            assertThat(down.getStatus()).isEqualTo(Status.DOWN);
            assertThat(down.getDetails()).containsEntry("failing", 25).containsEntry("tags", 25);
            assertThat((Map<?, ?>) down.getDetails().get("failures")).hasSize(10);
            assertThat((String) down.getDetails().get("reason")).contains("and 15 more tags");
        });
    }

    @Test
    void prometheusScrapesTheSegmentMetersUnderConventionalNames() {
        runner.run(context -> {
            tableWithOrders(context, 10);
            context.getBean(SegmentIdService.class).nextId("orders");

            assertThat(Scrapes.scrape(context)).contains("vesta_segment_loads_total{biz_tag=\"orders\"} 1.0",
                    "vesta_segment_loads_failed_total{biz_tag=\"orders\"} 0.0", "vesta_segment_waits_total{biz_tag=\"orders\"} 1.0",
                    "vesta_segment_remaining{biz_tag=\"orders\"} 9.0");
        });
    }

    @Test
    void theHealthIndicatorIsSwitchedOffWithVestasOthers() {
        runner.withPropertyValues("management.health.vesta.enabled=false").run(context -> assertThat(context)
                .hasNotFailed().doesNotHaveBean(VestaSegmentsHealthIndicator.class).doesNotHaveBean(VestaHealthIndicator.class)
                .hasSingleBean(VestaSegmentMetrics.class));
    }

    @Test
    void withoutSegmentModeThereIsNoSegmentIndicatorNorMeters() {
        runner.withPropertyValues("vesta.segment.enabled=false").run(context -> assertThat(context).hasNotFailed()
                .doesNotHaveBean(VestaSegmentsHealthIndicator.class).doesNotHaveBean(VestaSegmentMetrics.class)
                .hasSingleBean(VestaHealthIndicator.class));
    }
}
