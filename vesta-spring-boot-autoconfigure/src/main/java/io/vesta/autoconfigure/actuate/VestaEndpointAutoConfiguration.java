package io.vesta.autoconfigure.actuate;

import io.vesta.IdService;
import io.vesta.autoconfigure.VestaAutoConfiguration;
import io.vesta.autoconfigure.VestaProperties;
import io.vesta.segment.SegmentIdService;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/** The {@code vesta} Actuator endpoint, when Actuator is present and the endpoint is available. */
@AutoConfiguration(after = VestaAutoConfiguration.class)
@ConditionalOnClass({ Endpoint.class, ConditionalOnAvailableEndpoint.class })
@ConditionalOnAvailableEndpoint(VestaEndpoint.class)
@EnableConfigurationProperties(VestaProperties.class)
public final class VestaEndpointAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnBean(IdService.class)
    VestaEndpoint vestaEndpoint(IdService idService, VestaProperties properties,
            ObjectProvider<SegmentIdService> segmentIdService) {
        return new VestaEndpoint(idService, properties, segmentIdService);
    }
}
