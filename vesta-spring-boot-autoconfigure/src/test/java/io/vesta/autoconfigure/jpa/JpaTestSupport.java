package io.vesta.autoconfigure.jpa;

import com.zaxxer.hikari.HikariDataSource;
import io.vesta.autoconfigure.VestaAutoConfiguration;
import io.vesta.test.fixtures.jpa.entity.FieldOrder;
import io.vesta.test.fixtures.jpa.pkg.PackageOrder;
import jakarta.persistence.EntityManager;
import jakarta.persistence.EntityManagerFactory;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.hibernate.autoconfigure.HibernateJpaAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.orm.jpa.persistenceunit.PersistenceManagedTypes;

import java.util.UUID;

/**
 * Application contexts with Spring Boot's Hibernate JPA, and a helper around them. What {@code @VestaId} does in
 * Hibernate itself is {@code vesta-hibernate}'s to test; here, that the context hands its {@code IdService} over.
 */
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

    /** A pool on {@code test.jdbc-url}. */
    static HikariDataSource dataSource(Environment environment) {
        HikariDataSource dataSource = new HikariDataSource();
        dataSource.setJdbcUrl(environment.getRequiredProperty("test.jdbc-url"));
        dataSource.setMaximumPoolSize(4);
        return dataSource;
    }

    static <T> T persisted(ApplicationContext context, T entity) {
        EntityManager entityManager = context.getBean(EntityManagerFactory.class).createEntityManager();
        try {
            entityManager.getTransaction().begin();
            entityManager.persist(entity);
            entityManager.getTransaction().commit();
            return entity;
        } finally {
            entityManager.close();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class Entities {

        @Bean
        HikariDataSource dataSource(Environment environment) {
            return JpaTestSupport.dataSource(environment);
        }

        @Bean
        PersistenceManagedTypes persistenceManagedTypes() {
            return PersistenceManagedTypes.of(FieldOrder.class.getName(), PackageOrder.class.getName());
        }
    }
}
