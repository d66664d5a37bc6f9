package io.vesta.autoconfigure.jpa;

import io.vesta.IdService;
import io.vesta.SegmentNumbers;
import io.vesta.hibernate.VestaIdGenerator;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.orm.jpa.AbstractEntityManagerFactoryBean;

/**
 * Gives every {@code EntityManagerFactory} bean of the context, including ones the application builds itself, the
 * context's {@link IdService} under {@link VestaIdGenerator#ID_SERVICE}, and its {@link SegmentNumbers} (segment mode)
 * under {@link VestaIdGenerator#SEGMENT_NUMBERS}, unless its properties already name them.
 * It runs before the factory bean builds its {@code SessionFactory}.
 */
final class IdServiceEntityManagerFactoryPostProcessor implements BeanPostProcessor {

    private final ObjectProvider<IdService> idService;
    private final ObjectProvider<SegmentNumbers> segments;

    IdServiceEntityManagerFactoryPostProcessor(ObjectProvider<IdService> idService, ObjectProvider<SegmentNumbers> segments) {
        this.idService = idService;
        this.segments = segments;
    }

    @Override
    public Object postProcessBeforeInitialization(Object bean, String beanName) {
        if (bean instanceof AbstractEntityManagerFactoryBean factory
                && !factory.getJpaPropertyMap().containsKey(VestaIdGenerator.ID_SERVICE)) {
            IdService ids = idService.getIfAvailable();
            if (ids != null) {
                factory.getJpaPropertyMap().put(VestaIdGenerator.ID_SERVICE, ids);
            }
        }
        if (bean instanceof AbstractEntityManagerFactoryBean factory
                && !factory.getJpaPropertyMap().containsKey(VestaIdGenerator.SEGMENT_NUMBERS)) {
            SegmentNumbers numbers = segments.getIfUnique();
            if (numbers != null) {
                factory.getJpaPropertyMap().put(VestaIdGenerator.SEGMENT_NUMBERS, numbers);
            }
        }
        return bean;
    }
}
