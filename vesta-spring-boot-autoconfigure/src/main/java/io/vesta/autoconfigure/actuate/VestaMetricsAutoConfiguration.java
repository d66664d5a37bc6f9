package io.vesta.autoconfigure.actuate;

import io.micrometer.core.instrument.binder.MeterBinder;
import io.vesta.EmbeddedIdService;
import io.vesta.autoconfigure.VestaAutoConfiguration;
import io.vesta.autoconfigure.client.VestaClientAutoConfiguration;
import io.vesta.autoconfigure.segment.VestaSegmentAutoConfiguration;
import io.vesta.autoconfigure.server.ServerIdServices;
import io.vesta.autoconfigure.server.VestaServerAutoConfiguration;
import io.vesta.client.RemoteIdService;
import io.vesta.segment.SegmentIdService;
import io.vesta.time.TimeSource;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Vesta's meters in every mode (embedded, central server, client, segments), when Micrometer is present; Spring Boot binds every
 * {@link MeterBinder} bean to its registries.
 */
@AutoConfiguration(after = { VestaAutoConfiguration.class, VestaClientAutoConfiguration.class,
        VestaSegmentAutoConfiguration.class, VestaServerAutoConfiguration.class })
@ConditionalOnClass(MeterBinder.class)
public final class VestaMetricsAutoConfiguration {

    @Bean
    @ConditionalOnBean(EmbeddedIdService.class)
    @ConditionalOnMissingBean
    VestaMetrics vestaMetrics(EmbeddedIdService idService, TimeSource timeSource) {
        return new VestaMetrics(idService, timeSource);
    }

    /** A central server's second generator, the one that fills the clients' batches; its first is the IdService. */
    @Bean
    @ConditionalOnBean(ServerIdServices.class)
    @ConditionalOnMissingBean(name = "vestaCentralServerMetrics")
    VestaMetrics vestaCentralServerMetrics(ServerIdServices services, TimeSource timeSource) {
        return new VestaMetrics(services.centralServer(), timeSource);
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(RemoteIdService.class)
    static final class Client {

        @Bean
        @ConditionalOnBean(RemoteIdService.class)
        @ConditionalOnMissingBean
        VestaClientMetrics vestaClientMetrics(RemoteIdService client) {
            return new VestaClientMetrics(client);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(SegmentIdService.class)
    static final class Segments {

        @Bean
        @ConditionalOnBean(SegmentIdService.class)
        @ConditionalOnMissingBean
        VestaSegmentMetrics vestaSegmentMetrics(SegmentIdService segments) {
            return new VestaSegmentMetrics(segments);
        }
    }
}
