package io.vesta.autoconfigure.data;

import io.vesta.IdService;
import io.vesta.SegmentNumbers;
import io.vesta.autoconfigure.LazySegmentNumbers;
import io.vesta.autoconfigure.VestaAutoConfiguration;
import io.vesta.springdata.VestaIdAssigner;
import io.vesta.springdata.VestaIdJdbcCallback;
import io.vesta.springdata.VestaIdR2dbcCallback;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.jdbc.core.mapping.JdbcMappingContext;
import org.springframework.data.r2dbc.mapping.R2dbcMappingContext;

/**
 * {@code @VestaId} on Spring Data JDBC and Spring Data R2DBC aggregates: an entity callback per module, on the
 * application's {@link IdService} and the module's mapping context, when both are there. Spring Data finds entity
 * callbacks among the beans; nothing else is wired.
 */
@AutoConfiguration(after = VestaAutoConfiguration.class, afterName = {
        "org.springframework.boot.data.jdbc.autoconfigure.DataJdbcRepositoriesAutoConfiguration",
        "org.springframework.boot.data.r2dbc.autoconfigure.DataR2dbcAutoConfiguration" })
@ConditionalOnClass(name = "io.vesta.springdata.VestaIdAssigner")
public final class VestaSpringDataAutoConfiguration {

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.data.jdbc.core.mapping.JdbcMappingContext")
    static class Jdbc {

        @Bean
        @ConditionalOnMissingBean
        @ConditionalOnBean({ IdService.class, JdbcMappingContext.class })
        VestaIdJdbcCallback vestaIdJdbcCallback(IdService idService, JdbcMappingContext mappingContext,
                ObjectProvider<SegmentNumbers> segments) {
            return new VestaIdJdbcCallback(new VestaIdAssigner(idService, mappingContext, new LazySegmentNumbers(segments)));
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = { "org.springframework.data.r2dbc.mapping.R2dbcMappingContext", "reactor.core.publisher.Mono" })
    static class R2dbc {

        @Bean
        @ConditionalOnMissingBean
        @ConditionalOnBean({ IdService.class, R2dbcMappingContext.class })
        VestaIdR2dbcCallback vestaIdR2dbcCallback(IdService idService, R2dbcMappingContext mappingContext,
                ObjectProvider<SegmentNumbers> segments) {
            return new VestaIdR2dbcCallback(new VestaIdAssigner(idService, mappingContext, new LazySegmentNumbers(segments)));
        }
    }
}
