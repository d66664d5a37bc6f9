package io.vesta.autoconfigure.actuate;

import io.vesta.EmbeddedIdService;
import io.vesta.autoconfigure.VestaAutoConfiguration;
import io.vesta.time.TimeSource;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;

/** The {@code vesta} health indicator, when Spring Boot's health support is present. */
@AutoConfiguration(after = VestaAutoConfiguration.class)
@ConditionalOnClass({ HealthIndicator.class, ConditionalOnEnabledHealthIndicator.class })
@ConditionalOnEnabledHealthIndicator("vesta")
@ConditionalOnBean(EmbeddedIdService.class)
public final class VestaHealthContributorAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean(name = "vestaHealthIndicator")
    VestaHealthIndicator vestaHealthIndicator(EmbeddedIdService idService, TimeSource timeSource) {
        return new VestaHealthIndicator(idService, timeSource);
    }
}
