package io.vesta.autoconfigure.jackson;

import io.vesta.IdFormat;
import io.vesta.PublicIds;
import io.vesta.VestaId;
import io.vesta.autoconfigure.publicid.VestaPublicIdAutoConfiguration;
import io.vesta.jackson.VestaIdJacksonModule;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import tools.jackson.databind.JacksonModule;

/**
 * With {@code vesta.jackson.ids-as-strings=true}, {@link VestaId @VestaId} properties travel as JSON strings: the
 * module is a bean, and Spring Boot adds every {@link JacksonModule} bean to the {@code JsonMapper} it builds. With a
 * {@link PublicIds} bean ({@code vesta.public-id.enabled=true}) the module writes {@code @VestaId(publicId = true)}
 * properties in their public form, with or without {@code ids-as-strings}.
 */
@AutoConfiguration(after = VestaPublicIdAutoConfiguration.class)
@ConditionalOnClass({ VestaIdJacksonModule.class, JacksonModule.class })
@EnableConfigurationProperties(VestaJacksonProperties.class)
public final class VestaJacksonAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnBooleanProperty("vesta.jackson.ids-as-strings")
    VestaIdJacksonModule vestaIdJacksonModule(ObjectProvider<PublicIds> publicIds) {
        PublicIds available = publicIds.getIfAvailable();
        return available == null ? new VestaIdJacksonModule() : new VestaIdJacksonModule(IdFormat.DECIMAL, available);
    }

    /** Public IDs without {@code ids-as-strings}: only {@code @VestaId(publicId = true)} properties are converted. */
    @Bean
    @ConditionalOnMissingBean(VestaIdJacksonModule.class)
    @ConditionalOnBean(PublicIds.class)
    VestaIdJacksonModule vestaPublicIdJacksonModule(PublicIds publicIds) {
        return VestaIdJacksonModule.publicIdsOnly(publicIds);
    }
}
