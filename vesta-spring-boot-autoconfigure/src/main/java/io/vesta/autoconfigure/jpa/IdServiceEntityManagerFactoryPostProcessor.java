package io.vesta.autoconfigure.jpa;

import io.vesta.IdService;
import io.vesta.hibernate.VestaIdGenerator;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.orm.jpa.AbstractEntityManagerFactoryBean;

/**
 * Gives every {@code EntityManagerFactory} bean of the context, including ones the application builds itself, the
 * context's {@link IdService} under {@link VestaIdGenerator#ID_SERVICE}, unless its properties already name one.
 * It runs before the factory bean builds its {@code SessionFactory}.
 */
final class IdServiceEntityManagerFactoryPostProcessor implements BeanPostProcessor {

    private final ObjectProvider<IdService> idService;

    IdServiceEntityManagerFactoryPostProcessor(ObjectProvider<IdService> idService) {
        this.idService = idService;
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
        return bean;
    }
}
