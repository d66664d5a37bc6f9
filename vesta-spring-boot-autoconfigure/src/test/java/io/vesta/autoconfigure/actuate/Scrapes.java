package io.vesta.autoconfigure.actuate;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.springframework.context.ApplicationContext;

import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;

/** What the actuator tests share: a real Prometheus registry, and a bounded wait for background work. */
final class Scrapes {

    private Scrapes() {
    }

    /** A Prometheus registry for a context runner's {@code withBean}, to which Boot binds every meter binder. */
    static PrometheusMeterRegistry prometheusRegistry() {
        return new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    }

    /** The context's Prometheus scrape, as {@code /actuator/prometheus} would serve it. */
    static String scrape(ApplicationContext context) {
        return context.getBean(PrometheusMeterRegistry.class).scrape();
    }

    /** Polls {@code condition} until it holds; fails the test after ten seconds. */
    static void await(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as("%s within 10 s", what).isLessThan(deadline);
            Thread.sleep(5);
        }
    }
}
