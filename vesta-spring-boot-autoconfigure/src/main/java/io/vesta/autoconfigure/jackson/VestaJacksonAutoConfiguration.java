package io.vesta.autoconfigure.jackson;

import io.vesta.IdFormat;
import io.vesta.InvalidSettingException;
import io.vesta.PublicIds;
import io.vesta.VestaId;
import io.vesta.autoconfigure.publicid.VestaPublicIdAutoConfiguration;
import io.vesta.jackson.VestaIdJacksonModule;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.AnyNestedCondition;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.core.env.Environment;
import tools.jackson.databind.JacksonModule;

/**
 * With {@code vesta.jackson.ids-as-strings=true}, {@link VestaId @VestaId} properties travel as JSON strings: the
 * module is a bean, and Spring Boot adds every {@link JacksonModule} bean to the {@code JsonMapper} it builds. Without
 * it, a module still serves what properties ask for themselves ({@code @VestaId(format = ...)}, and
 * {@code @VestaId(publicId = true)}, refused while public IDs are off), and every other ID stays a JSON number.
 * {@code vesta.jackson.id-format} chooses the strings' {@link IdFormat} and, when set, turns strings on too; set
 * together with {@code ids-as-strings=false} it is refused rather than ignored. With a {@link PublicIds} bean
 * ({@code vesta.public-id.enabled=true}) the module writes {@code @VestaId(publicId = true)} properties in their
 * public form, with or without strings for the other IDs.
 */
@AutoConfiguration(after = VestaPublicIdAutoConfiguration.class)
@ConditionalOnClass({ VestaIdJacksonModule.class, JacksonModule.class })
@EnableConfigurationProperties(VestaJacksonProperties.class)
public final class VestaJacksonAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    @Conditional(IdsAsStringsOrIdFormat.class)
    VestaIdJacksonModule vestaIdJacksonModule(VestaJacksonProperties properties, Environment environment,
            ObjectProvider<PublicIds> publicIds) {
        String property = "vesta.jackson.id-format";
        IdFormat format;
        try {
            format = IdFormat.of(properties.getIdFormat());
        } catch (IllegalArgumentException e) {
            throw new InvalidSettingException(property, properties.getIdFormat(), IdFormat.allowedNames(),
                    "is not an ID format");
        }
        if (Boolean.FALSE.equals(environment.getProperty("vesta.jackson.ids-as-strings", Boolean.class))) {
            throw new InvalidSettingException(property, properties.getIdFormat(),
                    "unset, or set together with vesta.jackson.ids-as-strings=true",
                    "is set but vesta.jackson.ids-as-strings=false, which writes IDs as numbers");
        }
        PublicIds available = publicIds.getIfAvailable();
        return available == null ? new VestaIdJacksonModule(format) : new VestaIdJacksonModule(format, available);
    }

    /**
     * Without strings for every ID, only what a property asks for itself: {@code @VestaId(publicId = true)} in the
     * public form (refused, naming the property, when public IDs are off: never the raw ID in its place), and
     * {@code @VestaId(format = ...)} in its format. Other IDs stay JSON numbers.
     */
    @Bean
    @ConditionalOnMissingBean(VestaIdJacksonModule.class)
    VestaIdJacksonModule vestaPropertiesOwnJacksonModule(ObjectProvider<PublicIds> publicIds) {
        PublicIds available = publicIds.getIfAvailable();
        return available == null ? VestaIdJacksonModule.propertiesOwnOnly()
                : VestaIdJacksonModule.publicIdsOnly(available);
    }

    /** IDs as strings: asked for by {@code ids-as-strings=true}, or by choosing their format. */
    static final class IdsAsStringsOrIdFormat extends AnyNestedCondition {

        IdsAsStringsOrIdFormat() {
            super(ConfigurationPhase.REGISTER_BEAN);
        }

        @ConditionalOnBooleanProperty("vesta.jackson.ids-as-strings")
        static final class IdsAsStrings {
        }

        @ConditionalOnProperty(name = "vesta.jackson.id-format", matchIfMissing = false)
        static final class IdFormatSet {
        }
    }
}
