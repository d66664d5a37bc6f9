package io.vesta.autoconfigure.jackson;

import io.vesta.VestaId;
import io.vesta.jackson.VestaIdJacksonModule;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import tools.jackson.databind.JacksonModule;

/**
 * With {@code vesta.jackson.ids-as-strings=true}, {@link VestaId @VestaId} properties travel as JSON strings: the
 * module is a bean, and Spring Boot adds every {@link JacksonModule} bean to the {@code JsonMapper} it builds.
 */
@AutoConfiguration
@ConditionalOnClass({ VestaIdJacksonModule.class, JacksonModule.class })
@ConditionalOnBooleanProperty("vesta.jackson.ids-as-strings")
@EnableConfigurationProperties(VestaJacksonProperties.class)
public final class VestaJacksonAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    VestaIdJacksonModule vestaIdJacksonModule() {
        return new VestaIdJacksonModule();
    }
}
