package io.vesta.autoconfigure.jpa;

import io.vesta.IdService;
import io.vesta.SegmentNumbers;
import io.vesta.VestaId;
import io.vesta.autoconfigure.VestaAutoConfiguration;
import io.vesta.hibernate.VestaIdGenerator;
import org.hibernate.integrator.spi.Integrator;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.hibernate.autoconfigure.HibernatePropertiesCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.orm.jpa.AbstractEntityManagerFactoryBean;

/**
 * {@link VestaId @VestaId} identifiers filled from this context's {@link IdService}: the service is handed to each
 * {@code SessionFactory} as a setting, so every context in a JVM keeps its own. Which identifiers {@code @VestaId}
 * marks, and their generator, are {@code vesta-hibernate}'s: it needs to be on the class path, beside Hibernate.
 */
@AutoConfiguration(after = VestaAutoConfiguration.class)
@ConditionalOnClass({ VestaIdGenerator.class, Integrator.class, AbstractEntityManagerFactoryBean.class })
@ConditionalOnBean(IdService.class)
public final class VestaJpaAutoConfiguration {

    @Bean
    static IdServiceEntityManagerFactoryPostProcessor vestaIdServiceEntityManagerFactoryPostProcessor(
            ObjectProvider<IdService> idService, ObjectProvider<SegmentNumbers> segments) {
        return new IdServiceEntityManagerFactoryPostProcessor(idService, segments);
    }

    /** Spring Boot's own {@code EntityManagerFactory}, through its hook for Hibernate properties. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(HibernatePropertiesCustomizer.class)
    static class BootEntityManagerFactoryConfiguration {

        @Bean
        HibernatePropertiesCustomizer vestaIdHibernatePropertiesCustomizer(IdService idService,
                ObjectProvider<SegmentNumbers> segments) {
            return properties -> {
                properties.putIfAbsent(VestaIdGenerator.ID_SERVICE, idService);
                SegmentNumbers numbers = segments.getIfUnique();
                if (numbers != null) {
                    properties.putIfAbsent(VestaIdGenerator.SEGMENT_NUMBERS, numbers);
                }
            };
        }
    }
}
