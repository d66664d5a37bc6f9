package io.vesta.autoconfigure.actuate;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vesta.IdService;
import io.vesta.autoconfigure.VestaAutoConfiguration;
import io.vesta.autoconfigure.client.VestaClientAutoConfiguration;
import io.vesta.autoconfigure.server.VestaServerAutoConfiguration;
import io.vesta.client.RemoteIdService;
import io.vesta.test.ManualTimeSource;
import io.vesta.time.TimeSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.autoconfigure.context.PropertyPlaceholderAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.tomcat.autoconfigure.servlet.TomcatServletWebServerAutoConfiguration;
import org.springframework.boot.webmvc.autoconfigure.DispatcherServletAutoConfiguration;
import org.springframework.boot.webmvc.autoconfigure.WebMvcAutoConfiguration;
import org.springframework.context.ApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A client's health indicator and meters ({@code vesta.mode=client}), against a real central server (a Spring Boot
 * application on a random port) and a port that refuses connections.
 */
class VestaClientActuatorTests {

    private static ConfigurableApplicationContext server;
    private static String serverUrl;
    private static String refusingUrl;

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(VestaAutoConfiguration.class, VestaClientAutoConfiguration.class,
                    VestaHealthContributorAutoConfiguration.class, MetricsAutoConfiguration.class,
                    VestaMetricsAutoConfiguration.class))
            .withBean(PrometheusMeterRegistry.class, Scrapes::prometheusRegistry)
            .withPropertyValues("vesta.mode=client", "vesta.client.prefetch=100", "vesta.client.timeout=1s",
                    "vesta.client.backoff.initial=20ms", "vesta.client.backoff.max=100ms");

    @BeforeAll
    static void startServer() throws IOException {
        server = new SpringApplicationBuilder(CentralServer.class).properties("vesta.server.enabled=true",
                "vesta.machine-id.value=924", "vesta.time-store.enabled=false", "server.address=127.0.0.1",
                "server.port=0", "spring.main.banner-mode=off", "logging.level.root=warn").run();
        serverUrl = "http://127.0.0.1:" + server.getEnvironment().getRequiredProperty("local.server.port");
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            refusingUrl = "http://127.0.0.1:" + socket.getLocalPort();
        }
    }

    @AfterAll
    static void stopServer() {
        if (server != null) {
            server.close();
        }
    }

    private static HealthIndicator health(ApplicationContext context) {
        return context.getBean("vestaHealthIndicator", HealthIndicator.class);
    }

    private static RemoteIdService awaitFirstRound(ApplicationContext context) throws InterruptedException {
        RemoteIdService client = context.getBean(RemoteIdService.class);
        Scrapes.await(() -> client.batchesFetched() > 0 || !client.lastRoundFailures().isEmpty(), "the first fetch");
        return client;
    }

    @Test
    void healthIsUpWhileAServerAnswers() {
        runner.withPropertyValues("vesta.client.servers=" + serverUrl).run(context -> {
            awaitFirstRound(context);

            Health health = health(context).health();
            assertThat(health.getStatus()).isEqualTo(Status.UP);
            assertThat(health.getDetails()).containsEntry("bufferedIds", 100L).doesNotContainKey("failures");
        });
    }

    @Test
    void healthIsDownWhenNoServerAnswersAndThereIsNoFallback() {
        runner.withPropertyValues("vesta.client.servers=" + refusingUrl).run(context -> {
            awaitFirstRound(context);

            Health health = health(context).health();
            assertThat(health.getStatus()).isEqualTo(Status.DOWN);
            assertThat((String) health.getDetails().get("reason")).startsWith("No Vesta server answers");
            assertThat((List<?>) health.getDetails().get("failures")).singleElement().asString()
                    .startsWith(refusingUrl + " failed: cannot connect");
        });
    }

    @Test
    void healthStaysUpOnTheEmbeddedFallbackAndSaysSo() {
        runner.withPropertyValues("vesta.client.servers=" + refusingUrl, "vesta.client.fallback=embedded",
                "vesta.machine-id.value=12", "vesta.time-store.enabled=false").run(context -> {
            awaitFirstRound(context);

            Health health = health(context).health();
            assertThat(health.getStatus()).isEqualTo(Status.UP);
            assertThat((String) health.getDetails().get("fallback")).contains("vesta.client.fallback=embedded");
            assertThat(health.getDetails()).containsKey("failures");
        });
    }

    @Test
    void metersCountBatchesFailuresByServerFailoversAndBufferedIds() {
        // The first fetch asks the first server: it refuses, and the second one answers.
        runner.withPropertyValues("vesta.client.servers=" + refusingUrl + "," + serverUrl).run(context -> {
            awaitFirstRound(context);
            MeterRegistry registry = context.getBean(MeterRegistry.class);

            assertThat(registry.get("vesta.client.batches.fetched").functionCounter().count()).isEqualTo(1);
            assertThat(registry.get("vesta.client.server.failures").tag("server", refusingUrl).functionCounter().count())
                    .isEqualTo(1);
            assertThat(registry.get("vesta.client.server.failures").tag("server", serverUrl).functionCounter().count())
                    .isZero();
            assertThat(registry.get("vesta.client.failovers").functionCounter().count()).isEqualTo(1);
            assertThat(registry.get("vesta.client.buffered.ids").gauge().value()).isEqualTo(100);
            assertThat(registry.get("vesta.client.fallback.ids").functionCounter().count()).isZero();
        });
    }

    @Test
    void idsDroppedAsOlderThanTheMaxIdAgeAreCounted() {
        ManualTimeSource clock = new ManualTimeSource(Instant.now());
        runner.withPropertyValues("vesta.client.servers=" + serverUrl, "vesta.client.max-id-age=1s")
                .withBean(TimeSource.class, () -> clock).run(context -> {
                    RemoteIdService client = awaitFirstRound(context);
                    MeterRegistry registry = context.getBean(MeterRegistry.class);
                    client.genId();
                    assertThat(registry.get("vesta.client.expired.ids").functionCounter().count()).isZero();

                    // The client's clock moves on by two seconds: the 99 IDs left of the first batch are too old.
                    clock.advance(Duration.ofSeconds(2));
                    client.genId();

                    assertThat(registry.get("vesta.client.expired.ids").functionCounter().count()).isEqualTo(99);
                    assertThat(Scrapes.scrape(context)).contains("vesta_client_expired_ids_total 99.0");
                });
    }

    @Test
    void theFallbackIdsAreCounted() {
        runner.withPropertyValues("vesta.client.servers=" + refusingUrl, "vesta.client.fallback=embedded",
                "vesta.machine-id.value=12", "vesta.time-store.enabled=false").run(context -> {
            awaitFirstRound(context);
            context.getBean(IdService.class).genIds(1);
            context.getBean(IdService.class).genId();

            assertThat(context.getBean(MeterRegistry.class).get("vesta.client.fallback.ids").functionCounter().count())
                    .isEqualTo(2);
        });
    }

    @Test
    void prometheusScrapesTheClientMetersUnderConventionalNames() {
        runner.withPropertyValues("vesta.client.servers=" + refusingUrl + "," + serverUrl).run(context -> {
            awaitFirstRound(context);

            assertThat(Scrapes.scrape(context)).contains("vesta_client_batches_fetched_total 1.0",
                    "vesta_client_server_failures_total{server=\"" + refusingUrl + "\"} 1.0",
                    "vesta_client_server_failures_total{server=\"" + serverUrl + "\"} 0.0",
                    "vesta_client_failovers_total 1.0", "vesta_client_fallback_ids_total 0.0",
                    "vesta_client_buffered_ids 100.0");
        });
    }

    @Test
    void theHealthIndicatorIsSwitchedOffByManagementHealthVestaEnabled() {
        runner.withPropertyValues("vesta.client.servers=" + serverUrl, "management.health.vesta.enabled=false")
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(VestaClientHealthIndicator.class)
                        .hasSingleBean(VestaClientMetrics.class));
    }

    @Test
    void embeddedModeHasNoClientIndicatorNorMeters() {
        runner.withPropertyValues("vesta.mode=embedded", "vesta.machine-id.value=12", "vesta.time-store.enabled=false")
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(VestaClientHealthIndicator.class)
                        .doesNotHaveBean(VestaClientMetrics.class).hasSingleBean(VestaHealthIndicator.class)
                        .hasSingleBean(VestaMetrics.class));
    }

    @Test
    void aCentralServerMetersBothItsGeneratorsTaggedByGenMethod() throws InterruptedException {
        runner.withPropertyValues("vesta.client.servers=" + serverUrl).run(context -> awaitFirstRound(context));
        MeterRegistry registry = server.getBean(MeterRegistry.class);

        assertThat(registry.get("vesta.ids.issued").tag("gen.method", "central-server").tag("machine", "924")
                .functionCounter().count()).as("at least the batch of 100 just fetched").isGreaterThanOrEqualTo(100);
        assertThat(registry.get("vesta.ids.issued").tag("gen.method", "rest").functionCounter()).isNotNull();
        assertThat(server.getBean(PrometheusMeterRegistry.class).scrape())
                .contains("vesta_ids_issued_total{gen_method=\"central-server\",machine=\"924\",type=\"max-peak\"}",
                        "vesta_ids_issued_total{gen_method=\"rest\",machine=\"924\",type=\"max-peak\"}");
    }

    /** A central server: Tomcat, Spring MVC, Vesta's server endpoints, and its meters in a Prometheus registry. */
    @SpringBootConfiguration
    @ImportAutoConfiguration({ PropertyPlaceholderAutoConfiguration.class, TomcatServletWebServerAutoConfiguration.class,
            DispatcherServletAutoConfiguration.class, WebMvcAutoConfiguration.class, VestaAutoConfiguration.class,
            VestaServerAutoConfiguration.class, MetricsAutoConfiguration.class, VestaMetricsAutoConfiguration.class })
    static class CentralServer {

        @Bean
        PrometheusMeterRegistry prometheusMeterRegistry() {
            return Scrapes.prometheusRegistry();
        }
    }
}
