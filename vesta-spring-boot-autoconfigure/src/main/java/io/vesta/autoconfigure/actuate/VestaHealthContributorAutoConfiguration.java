package io.vesta.autoconfigure.actuate;

import io.vesta.EmbeddedIdService;
import io.vesta.InvalidSettingException;
import io.vesta.autoconfigure.MachineIdProperties;
import io.vesta.autoconfigure.VestaAutoConfiguration;
import io.vesta.autoconfigure.VestaProperties;
import io.vesta.autoconfigure.client.VestaClientAutoConfiguration;
import io.vesta.autoconfigure.segment.VestaSegmentAutoConfiguration;
import io.vesta.client.RemoteIdService;
import io.vesta.segment.SegmentIdService;
import io.vesta.time.TimeSource;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Vesta's health indicators, when Spring Boot's health support is present and {@code management.health.vesta.enabled}
 * is not false: {@code vesta} for the ID service (embedded or client mode), {@code vestaSegments} for segment mode, and
 * {@code vestaLiveness} for an embedded generator's liveness group (DOWN after {@code vesta.machine-id.liveness-timeout}
 * without a machine ID).
 */
@AutoConfiguration(after = { VestaAutoConfiguration.class, VestaClientAutoConfiguration.class,
        VestaSegmentAutoConfiguration.class })
@ConditionalOnClass({ HealthIndicator.class, ConditionalOnEnabledHealthIndicator.class })
@ConditionalOnEnabledHealthIndicator("vesta")
public final class VestaHealthContributorAutoConfiguration {

    @Bean
    @ConditionalOnBean(EmbeddedIdService.class)
    @ConditionalOnMissingBean(name = "vestaHealthIndicator")
    VestaHealthIndicator vestaHealthIndicator(EmbeddedIdService idService, TimeSource timeSource) {
        return new VestaHealthIndicator(idService, timeSource);
    }

    @Bean
    @ConditionalOnBean(EmbeddedIdService.class)
    @ConditionalOnMissingBean(name = "vestaLivenessHealthIndicator")
    VestaLivenessHealthIndicator vestaLivenessHealthIndicator(EmbeddedIdService idService, TimeSource timeSource,
            VestaProperties properties) {
        java.time.Duration timeout = InvalidSettingException.requireInRange("vesta.machine-id.liveness-timeout",
                properties.getMachineId().getLivenessTimeout(), MachineIdProperties.MIN_LIVENESS_TIMEOUT,
                MachineIdProperties.MAX_LIVENESS_TIMEOUT);
        return new VestaLivenessHealthIndicator(idService, timeSource, timeout);
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(RemoteIdService.class)
    static final class Client {

        @Bean
        @ConditionalOnBean(RemoteIdService.class)
        @ConditionalOnMissingBean(name = "vestaHealthIndicator")
        VestaClientHealthIndicator vestaHealthIndicator(RemoteIdService client) {
            return new VestaClientHealthIndicator(client);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(SegmentIdService.class)
    static final class Segments {

        @Bean
        @ConditionalOnBean(SegmentIdService.class)
        @ConditionalOnMissingBean(name = "vestaSegmentsHealthIndicator")
        VestaSegmentsHealthIndicator vestaSegmentsHealthIndicator(SegmentIdService segments) {
            return new VestaSegmentsHealthIndicator(segments);
        }
    }
}
