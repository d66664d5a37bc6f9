package io.vesta.autoconfigure.jpa;

import com.zaxxer.hikari.HikariDataSource;
import io.vesta.autoconfigure.VestaAutoConfiguration;
import io.vesta.autoconfigure.segment.VestaSegmentAutoConfiguration;
import io.vesta.fixtures.jpa.entity.SegmentInvoice;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.hibernate.autoconfigure.HibernateJpaAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.orm.jpa.persistenceunit.PersistenceManagedTypes;

import static org.assertj.core.api.Assertions.assertThat;

/** @VestaId(segment = "invoices") on a JPA entity, with the starter: the segment service of segment mode fills it. */
class SegmentEntityTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(VestaAutoConfiguration.class, VestaSegmentAutoConfiguration.class,
                    VestaJpaAutoConfiguration.class, HibernateJpaAutoConfiguration.class))
            .withUserConfiguration(Invoices.class)
            .withPropertyValues("vesta.machine-id.value=5", "vesta.time-store.enabled=false",
                    "spring.jpa.hibernate.ddl-auto=create-drop", JpaTestSupport.h2());

    @Test
    void anEntityOfASegmentTagGetsItsDenseNumbers() {
        runner.withPropertyValues("vesta.segment.enabled=true", "vesta.segment.auto-create=true").run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(JpaTestSupport.persisted(context, new SegmentInvoice(10)).getId()).isEqualTo(1);
            assertThat(JpaTestSupport.persisted(context, new SegmentInvoice(20)).getId()).isEqualTo(2);
        });
    }

    @Test
    void withoutSegmentModeStartUpFailsNamingTheEntityThePropertyAndTheTag() {
        runner.run(context -> assertThat(context).getFailure().rootCause()
                .hasMessageContaining("@VestaId(segment = \"invoices\") on " + SegmentInvoice.class.getName()
                        + ".id needs the segment numbers of tag 'invoices'")
                .hasMessageContaining("vesta.segment.enabled=true"));
    }

    @Configuration(proxyBeanMethods = false)
    static class Invoices {

        @Bean
        HikariDataSource dataSource(Environment environment) {
            return JpaTestSupport.dataSource(environment);
        }

        @Bean
        PersistenceManagedTypes persistenceManagedTypes() {
            return PersistenceManagedTypes.of(SegmentInvoice.class.getName());
        }
    }
}
