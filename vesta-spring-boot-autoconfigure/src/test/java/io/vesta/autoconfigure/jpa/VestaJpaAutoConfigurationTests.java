package io.vesta.autoconfigure.jpa;

import com.zaxxer.hikari.HikariDataSource;
import io.vesta.IdService;
import io.vesta.autoconfigure.VestaAutoConfiguration;
import io.vesta.test.fixtures.jpa.bad.IntegerOrder;
import io.vesta.test.fixtures.jpa.entity.FieldOrder;
import io.vesta.test.fixtures.jpa.pkg.PackageOrder;
import io.vesta.hibernate.VestaIdGenerator;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.hibernate.autoconfigure.HibernateJpaAutoConfiguration;
import org.springframework.boot.hibernate.autoconfigure.HibernatePropertiesCustomizer;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.orm.jpa.LocalContainerEntityManagerFactoryBean;
import org.springframework.orm.jpa.persistenceunit.PersistenceManagedTypes;
import org.springframework.orm.jpa.vendor.HibernateJpaVendorAdapter;

import java.util.Map;

import static io.vesta.autoconfigure.jpa.JpaTestSupport.persisted;
import static org.assertj.core.api.Assertions.assertThat;

class VestaJpaAutoConfigurationTests {

    @Test
    void twoApplicationContextsInOneJvmEachFillIdsFromTheirOwnIdService() {
        JpaTestSupport.runner().withPropertyValues(JpaTestSupport.h2(), "vesta.machine-id.value=3").run(first ->
                JpaTestSupport.runner().withPropertyValues(JpaTestSupport.h2(), "vesta.machine-id.value=4").run(second -> {
                    IdService firstIds = first.getBean(IdService.class);
                    IdService secondIds = second.getBean(IdService.class);
                    // Interleaved, after both SessionFactories exist: a generator that kept the last context's
                    // service in static state would give both the same machine.
                    long a = persisted(first, new FieldOrder("first")).getId();
                    long b = persisted(second, new FieldOrder("second")).getId();
                    long c = persisted(first, new PackageOrder("first again")).getId();
                    long d = persisted(second, new PackageOrder("second again")).getId();
                    assertThat(firstIds.expId(a).machine()).isEqualTo(3);
                    assertThat(secondIds.expId(b).machine()).isEqualTo(4);
                    assertThat(firstIds.expId(c).machine()).isEqualTo(3);
                    assertThat(secondIds.expId(d).machine()).isEqualTo(4);
                }));
    }

    @Test
    void springBootsEntityManagerFactoryGetsTheContextsIdServiceAsAHibernateSetting() {
        JpaTestSupport.runner().withPropertyValues(JpaTestSupport.h2()).run(context -> {
            assertThat(context).hasSingleBean(HibernatePropertiesCustomizer.class);
            Map<String, Object> properties = context.getBean(LocalContainerEntityManagerFactoryBean.class).getJpaPropertyMap();
            assertThat(properties.get(VestaIdGenerator.ID_SERVICE)).isSameAs(context.getBean(IdService.class));
        });
    }

    @Test
    void anEntityManagerFactoryTheApplicationBuildsItselfGetsTheIdServiceToo() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(VestaAutoConfiguration.class, VestaJpaAutoConfiguration.class))
                .withUserConfiguration(OwnEntityManagerFactory.class)
                .withPropertyValues("vesta.machine-id.value=9", JpaTestSupport.h2())
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    long id = persisted(context, new FieldOrder("own factory")).getId();
                    assertThat(context.getBean(IdService.class).expId(id).machine()).isEqualTo(9);
                });
    }

    @Test
    void withoutTheStarterAHibernateThatWasNotGivenAnIdServiceSaysWhatToSet() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(VestaAutoConfiguration.class))
                .withUserConfiguration(OwnEntityManagerFactory.class)
                .withPropertyValues("vesta.machine-id.value=9", JpaTestSupport.h2())
                .run(context -> assertThat(context).getFailure().rootCause()
                        .hasMessageContaining("@VestaId on " + FieldOrder.class.getName() + ".id needs an IdService")
                        .hasMessageContaining("Hibernate setting 'vesta.id-service' is not set"));
    }

    @Test
    void aVestaIdOnAnIdentifierThatCannotHoldOneFailsStartupNamingIt() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(VestaAutoConfiguration.class, VestaJpaAutoConfiguration.class,
                        HibernateJpaAutoConfiguration.class))
                .withUserConfiguration(IntegerIdEntity.class)
                .withPropertyValues("vesta.machine-id.value=9", JpaTestSupport.h2())
                .run(context -> assertThat(context).getFailure().rootCause()
                        .hasMessageContaining("@VestaId on " + IntegerOrder.class.getName()
                                + ".id needs a Long, long or String identifier, but it is a java.lang.Integer"));
    }

    @Test
    void withoutHibernateTheJpaSupportBacksOffAndTheIdServiceStays() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(VestaAutoConfiguration.class, VestaJpaAutoConfiguration.class))
                .withClassLoader(new FilteredClassLoader("org.hibernate."))
                .withPropertyValues("vesta.machine-id.value=9")
                .run(context -> assertThat(context).hasNotFailed().hasSingleBean(IdService.class)
                        .doesNotHaveBean(IdServiceEntityManagerFactoryPostProcessor.class)
                        .doesNotHaveBean(HibernatePropertiesCustomizer.class));
    }

    @Configuration(proxyBeanMethods = false)
    static class IntegerIdEntity {

        @Bean
        HikariDataSource dataSource(Environment environment) {
            return JpaTestSupport.dataSource(environment);
        }

        @Bean
        PersistenceManagedTypes persistenceManagedTypes() {
            return PersistenceManagedTypes.of(IntegerOrder.class.getName());
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnEntityManagerFactory {

        @Bean
        HikariDataSource dataSource(Environment environment) {
            return JpaTestSupport.dataSource(environment);
        }

        @Bean
        LocalContainerEntityManagerFactoryBean entityManagerFactory(HikariDataSource dataSource) {
            LocalContainerEntityManagerFactoryBean factory = new LocalContainerEntityManagerFactoryBean();
            factory.setDataSource(dataSource);
            factory.setJpaVendorAdapter(new HibernateJpaVendorAdapter());
            factory.setManagedTypes(PersistenceManagedTypes.of(FieldOrder.class.getName()));
            factory.getJpaPropertyMap().put("hibernate.hbm2ddl.auto", "create-drop");
            return factory;
        }
    }
}
