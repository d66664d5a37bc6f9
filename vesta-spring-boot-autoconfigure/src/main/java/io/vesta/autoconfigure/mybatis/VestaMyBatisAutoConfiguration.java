package io.vesta.autoconfigure.mybatis;

import io.vesta.IdService;
import io.vesta.SegmentNumbers;
import io.vesta.autoconfigure.LazySegmentNumbers;
import io.vesta.autoconfigure.VestaAutoConfiguration;
import io.vesta.mybatis.VestaMyBatisInterceptor;
import org.apache.ibatis.plugin.Interceptor;
import org.apache.ibatis.session.SqlSessionFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * Vesta IDs for MyBatis inserts: an {@link Interceptor} bean, which the MyBatis starter adds to the
 * {@code SqlSessionFactory} it builds, and a post-processor that adds it to any other {@code SqlSessionFactory} of
 * the context, once each.
 */
@AutoConfiguration(after = VestaAutoConfiguration.class)
@ConditionalOnClass({ VestaMyBatisInterceptor.class, SqlSessionFactory.class, Interceptor.class })
@ConditionalOnBean(IdService.class)
@EnableConfigurationProperties(VestaMyBatisProperties.class)
public final class VestaMyBatisAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    VestaMyBatisInterceptor vestaMyBatisInterceptor(IdService idService, VestaMyBatisProperties properties,
            ObjectProvider<SegmentNumbers> segments) {
        return new VestaMyBatisInterceptor(idService, properties.getIdProperty(), new LazySegmentNumbers(segments));
    }

    @Bean
    static SqlSessionFactoryInterceptorPostProcessor vestaSqlSessionFactoryInterceptorPostProcessor(
            ObjectProvider<VestaMyBatisInterceptor> interceptor) {
        return new SqlSessionFactoryInterceptorPostProcessor(interceptor);
    }
}
