package io.vesta.autoconfigure.jpa;

import io.vesta.autoconfigure.VestaAutoConfiguration;
import io.vesta.fixtures.jpa.entity.FieldOrder;
import io.vesta.fixtures.jpa.entity.GeneratedValueOrder;
import io.vesta.fixtures.jpa.entity.IdentityOrder;
import io.vesta.fixtures.jpa.entity.PrimitiveOrder;
import io.vesta.fixtures.jpa.entity.StringOrder;
import io.vesta.fixtures.jpa.pkg.PackageOrder;
import jakarta.persistence.EntityManager;
import jakarta.persistence.EntityManagerFactory;
import org.hibernate.engine.spi.SessionFactoryImplementor;
import org.hibernate.generator.Generator;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.hibernate.autoconfigure.HibernateJpaAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.orm.jpa.persistenceunit.PersistenceManagedTypes;

import java.util.UUID;
import java.util.function.Function;

/** Application contexts with Spring Boot's Hibernate JPA on a counting pool, and a few helpers around them. */
final class JpaTestSupport {

    static final long MACHINE = 17;

    private JpaTestSupport() {
    }

    /** Spring Boot's JPA with the Vesta starter, machine ID {@link #MACHINE}, batches of 50 inserts. */
    static ApplicationContextRunner runner() {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(VestaAutoConfiguration.class, VestaJpaAutoConfiguration.class,
                        HibernateJpaAutoConfiguration.class))
                .withUserConfiguration(Entities.class)
                .withPropertyValues("vesta.machine-id.value=" + MACHINE, "spring.jpa.hibernate.ddl-auto=create-drop",
                        "spring.jpa.properties.hibernate.jdbc.batch_size=50",
                        "spring.jpa.properties.hibernate.order_inserts=true");
    }

    /** Properties for a context of its own in-memory H2 database. */
    static String h2() {
        return "test.jdbc-url=jdbc:h2:mem:vesta-jpa-" + UUID.randomUUID();
    }

    static <T> T inTransaction(ApplicationContext context, Function<EntityManager, T> work) {
        EntityManager entityManager = context.getBean(EntityManagerFactory.class).createEntityManager();
        try {
            entityManager.getTransaction().begin();
            T result = work.apply(entityManager);
            entityManager.getTransaction().commit();
            return result;
        } finally {
            entityManager.close();
        }
    }

    static <T> T persisted(ApplicationContext context, T entity) {
        return inTransaction(context, entityManager -> {
            entityManager.persist(entity);
            return entity;
        });
    }

    static <T> T find(ApplicationContext context, Class<T> type, Object id) {
        return inTransaction(context, entityManager -> entityManager.find(type, id));
    }

    static Generator generatorOf(ApplicationContext context, Class<?> entity) {
        return context.getBean(EntityManagerFactory.class).unwrap(SessionFactoryImplementor.class).getMappingMetamodel()
                .getEntityDescriptor(entity).getGenerator();
    }

    @Configuration(proxyBeanMethods = false)
    static class Entities {

        @Bean
        CountingDataSource dataSource(Environment environment) {
            return new CountingDataSource(environment.getRequiredProperty("test.jdbc-url"));
        }

        @Bean
        PersistenceManagedTypes persistenceManagedTypes() {
            return PersistenceManagedTypes.of(FieldOrder.class.getName(), GeneratedValueOrder.class.getName(),
                    PrimitiveOrder.class.getName(), StringOrder.class.getName(), IdentityOrder.class.getName(),
                    PackageOrder.class.getName());
        }
    }
}
