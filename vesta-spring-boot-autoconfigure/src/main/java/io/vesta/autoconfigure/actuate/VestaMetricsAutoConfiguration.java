package io.vesta.autoconfigure.actuate;

import io.micrometer.core.instrument.binder.MeterBinder;
import io.vesta.EmbeddedIdService;
import io.vesta.autoconfigure.VestaAutoConfiguration;
import io.vesta.time.TimeSource;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/** Vesta's meters, when Micrometer is present; Spring Boot binds every {@link MeterBinder} bean to its registries. */
@AutoConfiguration(after = VestaAutoConfiguration.class)
@ConditionalOnClass(MeterBinder.class)
@ConditionalOnBean(EmbeddedIdService.class)
public final class VestaMetricsAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    VestaMetrics vestaMetrics(EmbeddedIdService idService, TimeSource timeSource) {
        return new VestaMetrics(idService, timeSource);
    }
}
