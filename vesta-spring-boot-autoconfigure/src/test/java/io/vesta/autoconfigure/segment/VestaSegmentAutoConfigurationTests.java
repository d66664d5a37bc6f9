package io.vesta.autoconfigure.segment;

import io.vesta.InvalidSettingException;
import io.vesta.autoconfigure.VestaAutoConfiguration;
import io.vesta.segment.SegmentIdService;
import io.vesta.segment.SegmentUnavailableException;
import io.vesta.segment.SegmentView;
import io.vesta.segment.UnknownBizTagException;
import io.vesta.test.ManualTimeSource;
import io.vesta.time.TimeSource;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.jdbc.core.JdbcTemplate;

import javax.sql.DataSource;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/** The {@code SegmentIdService} bean from {@code vesta.segment.*} on Boot's own DataSource, on in-memory H2. */
class VestaSegmentAutoConfigurationTests {

    private final String table = "vesta_segment_" + UUID.randomUUID().toString().replace("-", "").substring(0, 10);

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class, VestaAutoConfiguration.class,
                    VestaSegmentAutoConfiguration.class))
            .withPropertyValues("spring.datasource.url=jdbc:h2:mem:" + table + ";DB_CLOSE_DELAY=-1",
                    "vesta.machine-id.value=3", "vesta.segment.table=" + table);

    private ApplicationContextRunner enabled() {
        return runner.withPropertyValues("vesta.segment.enabled=true", "vesta.segment.initialize-schema=always");
    }

    @Test
    void segmentModeIsOffUnlessEnabled() {
        runner.run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(SegmentIdService.class));
        runner.withPropertyValues("vesta.segment.enabled=false")
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(SegmentIdService.class));
    }

    @Test
    void enabledGivesANumberServiceOnTheApplicationsDataSource() {
        enabled().run(context -> {
            SegmentIdService service = context.getBean(SegmentIdService.class);
            JdbcTemplate jdbc = new JdbcTemplate(context.getBean(DataSource.class));
            jdbc.update("INSERT INTO " + table + " (biz_tag, max_id, step, description) VALUES ('orders', 1, 100, 'Orders')");

            assertThat(service.table()).isEqualTo(table);
            assertThat(service.nextId("orders")).isEqualTo(1);
            assertThat(service.nextIds("orders", 3)).containsExactly(2, 3, 4);
            // The allocation went through the application's pool: the row moved on by one step.
            assertThat(jdbc.queryForObject("SELECT max_id FROM " + table + " WHERE biz_tag = 'orders'", Long.class))
                    .isGreaterThanOrEqualTo(101);
        });
    }

    @Test
    void defaultsAreTheEnginesDefaults() {
        VestaSegmentProperties defaults = new VestaSegmentProperties();
        assertThat(defaults.isEnabled()).isFalse();
        assertThat(defaults.getInitializeSchema()).isEqualTo(org.springframework.boot.sql.init.DatabaseInitializationMode.EMBEDDED);
        assertThat(defaults.isAutoCreate()).isFalse();
        assertThat(defaults.getTable()).isEqualTo(SegmentIdService.DEFAULT_TABLE);
        assertThat(defaults.getRefillThreshold()).isEqualTo(SegmentIdService.DEFAULT_REFILL_THRESHOLD);
        assertThat(defaults.getTargetDuration()).isEqualTo(SegmentIdService.DEFAULT_TARGET_DURATION);
        assertThat(defaults.getMaxStep()).isEqualTo(SegmentIdService.DEFAULT_MAX_STEP);
        assertThat(defaults.getDefaultStep()).isEqualTo(SegmentIdService.DEFAULT_STEP);
        assertThat(defaults.getRetryInterval()).isEqualTo(SegmentIdService.DEFAULT_RETRY_INTERVAL);
        assertThat(defaults.getLoaderThreads()).isEqualTo(SegmentIdService.DEFAULT_LOADER_THREADS);
        assertThat(defaults.getTimeout()).isEqualTo(SegmentIdService.DEFAULT_TIMEOUT);
    }

    @Test
    void timeoutBoundsEveryStatementOfTheService() {
        enabled().run(context -> assertThat(context.getBean(SegmentIdService.class).timeout())
                .isEqualTo(SegmentIdService.DEFAULT_TIMEOUT));
        enabled().withPropertyValues("vesta.segment.timeout=30s", "vesta.segment.auto-create=true").run(context -> {
            SegmentIdService service = context.getBean(SegmentIdService.class);
            assertThat(service.timeout()).isEqualTo(Duration.ofSeconds(30));
            assertThat(service.nextId("orders")).isEqualTo(1);
        });
    }

    @Test
    void unknownTagIsAnErrorUnlessAutoCreateIsOn() {
        enabled().run(context -> assertThatExceptionOfType(UnknownBizTagException.class)
                .isThrownBy(() -> context.getBean(SegmentIdService.class).nextId("invoices"))
                .withMessageContaining("Unknown bizTag 'invoices'").withMessageContaining(table));

        enabled().withPropertyValues("vesta.segment.auto-create=true", "vesta.segment.default-step=7").run(context -> {
            SegmentIdService service = context.getBean(SegmentIdService.class);
            assertThat(service.nextIds("invoices", 7)).containsExactly(1, 2, 3, 4, 5, 6, 7);
            assertThat(service.segment("invoices")).get().extracting(SegmentView::tableStep).isEqualTo(7);
            assertThat(new JdbcTemplate(context.getBean(DataSource.class))
                    .queryForObject("SELECT step FROM " + table + " WHERE biz_tag = 'invoices'", Integer.class)).isEqualTo(7);
        });
    }

    @Test
    void withInitializeSchemaNeverTheTableIsLeftToTheApplication() {
        runner.withPropertyValues("vesta.segment.enabled=true", "vesta.segment.initialize-schema=never",
                "vesta.segment.auto-create=true").run(context -> {
            assertThat(context).hasNotFailed();
            assertThatExceptionOfType(SegmentUnavailableException.class)
                    .isThrownBy(() -> context.getBean(SegmentIdService.class).nextId("orders"))
                    .withMessageContaining("bizTag 'orders'").withMessageContaining(table);
        });
    }

    @Test
    void stepDoublesUpToMaxStepWhileSegmentsLastLessThanTheTargetDuration() {
        ManualTimeSource clock = new ManualTimeSource(Instant.parse("2026-03-01T10:00:00Z"));
        enabled().withBean(TimeSource.class, () -> clock)
                .withPropertyValues("vesta.time-store.enabled=false", "vesta.segment.auto-create=true", "vesta.segment.default-step=10",
                        "vesta.segment.max-step=25", "vesta.segment.target-duration=1h")
                .run(context -> {
                    SegmentIdService service = context.getBean(SegmentIdService.class);
                    // The clock stands still: every segment is used up at once, far faster than the target.
                    assertThat(service.nextIds("orders", 10 + 20 + 25)).doesNotHaveDuplicates().isSorted();
                    await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
                            assertThat(service.segment("orders")).get().extracting(SegmentView::step).isEqualTo(25));
                });
    }

    @Test
    void stepStaysWhenSegmentsLastAsLongAsTheTarget() {
        ManualTimeSource clock = new ManualTimeSource(Instant.parse("2026-03-01T10:00:00Z"));
        enabled().withBean(TimeSource.class, () -> clock)
                .withPropertyValues("vesta.time-store.enabled=false", "vesta.segment.auto-create=true", "vesta.segment.default-step=10",
                        "vesta.segment.target-duration=1s", "vesta.segment.refill-threshold=0.5")
                .run(context -> {
                    SegmentIdService service = context.getBean(SegmentIdService.class);
                    assertThat(service.nextIds("orders", 4)).containsExactly(1, 2, 3, 4);
                    // Below the refill threshold of 0.5 (numbers 1-5 of 1-10): nothing is loaded ahead yet.
                    assertThat(service.segment("orders")).get()
                            .extracting(SegmentView::loads, SegmentView::loading, SegmentView::nextReady)
                            .containsExactly(1L, false, false);
                    // The segment lasts 1.5 s against a 1 s target: the step neither doubles nor halves.
                    clock.advance(Duration.ofMillis(1500));
                    assertThat(service.nextIds("orders", 2)).containsExactly(5, 6);
                    await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(service.segment("orders")).get()
                            .extracting(SegmentView::nextReady, SegmentView::step).containsExactly(true, 10));
                });
    }

    @Test
    void backsOffForTheApplicationsOwnService() {
        enabled().withBean("mySegments", SegmentIdService.class,
                        () -> SegmentIdService.builder().dataSource(new JdbcDataSource()).table("mine").build())
                .run(context -> {
                    assertThat(context).hasSingleBean(SegmentIdService.class);
                    assertThat(context.getBean(SegmentIdService.class).table()).isEqualTo("mine");
                });
    }

    @Test
    void withoutADataSourceSegmentModeFailsStartUpRatherThanStartingWithoutSegments() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(VestaAutoConfiguration.class, VestaSegmentAutoConfiguration.class))
                .withPropertyValues("vesta.machine-id.value=3", "vesta.segment.enabled=true")
                .run(context -> assertThat(context).getFailure().rootCause().isInstanceOfSatisfying(InvalidSettingException.class,
                        e -> assertThat(e.setting()).isEqualTo("vesta.segment.enabled")));
    }

    @Test
    void withoutVestasTimeSourceTheSystemClockIsUsed() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class, VestaSegmentAutoConfiguration.class))
                .withPropertyValues("spring.datasource.url=jdbc:h2:mem:" + table + ";DB_CLOSE_DELAY=-1",
                        "vesta.segment.enabled=true", "vesta.segment.initialize-schema=always",
                        "vesta.segment.auto-create=true", "vesta.segment.table=" + table)
                .run(context -> {
                    Instant before = Instant.now();
                    context.getBean(SegmentIdService.class).nextId("orders");
                    assertThat(context.getBean(SegmentIdService.class).segment("orders")).get()
                            .extracting(SegmentView::lastLoadTime).satisfies(time -> assertThat(time).isAfterOrEqualTo(before.minusMillis(1)));
                });
    }

    @Test
    void serviceIsClosedWithTheContext() {
        SegmentIdService[] service = new SegmentIdService[1];
        enabled().withPropertyValues("vesta.segment.auto-create=true").run(context -> {
            service[0] = context.getBean(SegmentIdService.class);
            service[0].nextId("orders");
        });
        assertThatExceptionOfType(IllegalStateException.class).isThrownBy(() -> service[0].nextId("invoices"))
                .withMessageContaining("SegmentIdService is closed");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', textBlock = """
            vesta.segment.table            | orders-table | orders-table | an unquoted SQL identifier
            vesta.segment.refill-threshold | 1.0          | 1.0          | at least 0.0 and below 1.0
            vesta.segment.refill-threshold | -0.1         | -0.1         | at least 0.0 and below 1.0
            vesta.segment.target-duration  | 0s           | 0ms          | [1ms, 86400000ms]
            vesta.segment.target-duration  | 2d           | 172800000ms  | [1ms, 86400000ms]
            vesta.segment.max-step         | 0            | 0            | [1, 1000000000]
            vesta.segment.default-step     | 1000000001   | 1000000001   | [1, 1000000000]
            vesta.segment.retry-interval   | 2m           | 120000ms     | [0ms, 60000ms]
            vesta.segment.loader-threads   | 0            | 0            | [1, 64]
            vesta.segment.loader-threads   | 65           | 65           | [1, 64]
            vesta.segment.timeout          | 0s           | 0ms          | a whole number of seconds in [1s, 600s]
            vesta.segment.timeout          | 11m          | 660000ms     | a whole number of seconds in [1s, 600s]
            vesta.segment.timeout          | 1500ms       | 1500ms       | a whole number of seconds in [1s, 600s]
            """)
    void badValueFailsStartUpNamingTheProperty(String property, String value, String reported, String allowed) {
        enabled().withPropertyValues(property + "=" + value).run(context -> {
            assertThat(context).hasFailed();
            InvalidSettingException e = invalidProperty(context.getStartupFailure());
            assertThat(e.setting()).isEqualTo(property);
            assertThat(String.valueOf(e.value())).isEqualTo(reported);
            assertThat(e.allowed()).contains(allowed);
        });
    }

    private static InvalidSettingException invalidProperty(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof InvalidSettingException invalid) {
                return invalid;
            }
        }
        throw new AssertionError("No InvalidSettingException in the start-up failure", failure);
    }

    @Test
    void initializeSchemaOnADatabaseWithoutAScriptNamesTheProperty() {
        // Any product Vesta has no script for; H2 in a compatibility mode still reports "H2", so the DataSource
        // reports another product name.
        runner.withPropertyValues("vesta.segment.enabled=true", "vesta.segment.initialize-schema=always")
                .withBean(DataSource.class, () -> new ProductNameDataSource("jdbc:h2:mem:" + table, "Apache Derby"))
                .run(context -> {
                    assertThat(context).hasFailed();
                    InvalidSettingException e = invalidProperty(context.getStartupFailure());
                    assertThat(e.setting()).isEqualTo("vesta.segment.initialize-schema");
                    assertThat(e.getMessage()).contains("No schema script for database 'Apache Derby'");
                });
    }

    @Test
    void controllerNeedsAServletWebApplicationAServerAndASegmentService() {
        WebApplicationContextRunner web = new WebApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class, VestaAutoConfiguration.class,
                        VestaSegmentAutoConfiguration.class, VestaSegmentServerAutoConfiguration.class))
                .withPropertyValues("spring.datasource.url=jdbc:h2:mem:" + table + ";DB_CLOSE_DELAY=-1",
                        "vesta.machine-id.value=3", "vesta.segment.table=" + table);
        web.withPropertyValues("vesta.segment.enabled=true", "vesta.server.enabled=true")
                .run(context -> assertThat(context).hasSingleBean(SegmentController.class));
        web.withPropertyValues("vesta.segment.enabled=true")
                .run(context -> assertThat(context).doesNotHaveBean(SegmentController.class));
        web.withPropertyValues("vesta.server.enabled=true")
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(SegmentController.class));
        web.withPropertyValues("vesta.segment.enabled=true", "vesta.server.enabled=true")
                .withClassLoader(new FilteredClassLoader("org.springframework.web.servlet"))
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(SegmentController.class));
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class, VestaAutoConfiguration.class,
                        VestaSegmentAutoConfiguration.class, VestaSegmentServerAutoConfiguration.class))
                .withPropertyValues("spring.datasource.url=jdbc:h2:mem:" + table + ";DB_CLOSE_DELAY=-1",
                        "vesta.machine-id.value=3", "vesta.segment.enabled=true", "vesta.server.enabled=true")
                .run(context -> assertThat(context).hasSingleBean(SegmentIdService.class)
                        .doesNotHaveBean(SegmentController.class));
    }
}
