package io.vesta.autoconfigure.mybatis;

import io.vesta.mybatis.VestaMyBatisInterceptor;
import org.apache.ibatis.session.Configuration;
import org.apache.ibatis.session.SqlSessionFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;

/**
 * Adds the {@link VestaMyBatisInterceptor} to every {@link SqlSessionFactory} of the context that does not have one
 * yet: the MyBatis starter registers it on the factory it builds (it takes every {@code Interceptor} bean), and
 * this covers factories the application builds itself. Applied after initialization, so it also sees the factory
 * a {@code SqlSessionFactoryBean} makes.
 */
final class SqlSessionFactoryInterceptorPostProcessor implements BeanPostProcessor {

    private final ObjectProvider<VestaMyBatisInterceptor> interceptor;

    SqlSessionFactoryInterceptorPostProcessor(ObjectProvider<VestaMyBatisInterceptor> interceptor) {
        this.interceptor = interceptor;
    }

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        if (bean instanceof SqlSessionFactory factory) {
            Configuration configuration = factory.getConfiguration();
            if (configuration.getInterceptors().stream().noneMatch(VestaMyBatisInterceptor.class::isInstance)) {
                VestaMyBatisInterceptor vesta = interceptor.getIfAvailable();
                if (vesta != null) {
                    configuration.addInterceptor(vesta);
                }
            }
        }
        return bean;
    }
}
