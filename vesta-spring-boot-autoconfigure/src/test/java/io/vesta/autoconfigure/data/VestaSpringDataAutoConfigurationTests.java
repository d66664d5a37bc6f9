package io.vesta.autoconfigure.data;

import io.vesta.IdService;
import io.vesta.VestaId;
import io.vesta.autoconfigure.VestaAutoConfiguration;
import io.vesta.springdata.VestaIdJdbcCallback;
import io.vesta.springdata.VestaIdR2dbcCallback;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.annotation.Id;
import org.springframework.data.jdbc.core.mapping.JdbcMappingContext;
import org.springframework.data.r2dbc.mapping.R2dbcMappingContext;
import org.springframework.data.relational.core.sql.SqlIdentifier;
import reactor.core.publisher.Mono;

import static org.assertj.core.api.Assertions.assertThat;

/** The callbacks are there when the application has an IdService and the Spring Data module's mapping context. */
class VestaSpringDataAutoConfigurationTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(VestaAutoConfiguration.class, VestaSpringDataAutoConfiguration.class))
            .withPropertyValues("vesta.machine-id.value=9", "vesta.time-store.enabled=false");

    static class Invoice {
        @Id
        @VestaId
        Long id;
    }

    @Test
    void aJdbcMappingContextGetsTheJdbcCallbackWhichFillsTheVestaId() {
        runner.withBean(JdbcMappingContext.class, JdbcMappingContext::new).run(context -> {
            assertThat(context).hasSingleBean(VestaIdJdbcCallback.class).doesNotHaveBean(VestaIdR2dbcCallback.class);
            Invoice invoice = (Invoice) context.getBean(VestaIdJdbcCallback.class).onBeforeConvert(new Invoice());
            assertThat(context.getBean(IdService.class).expId(invoice.id).machine()).isEqualTo(9);
        });
    }

    @Test
    void anR2dbcMappingContextGetsTheR2dbcCallback() {
        runner.withBean(R2dbcMappingContext.class, R2dbcMappingContext::new).run(context -> {
            assertThat(context).hasSingleBean(VestaIdR2dbcCallback.class).doesNotHaveBean(VestaIdJdbcCallback.class);
            Invoice invoice = (Invoice) Mono.from(context.getBean(VestaIdR2dbcCallback.class)
                    .onBeforeConvert(new Invoice(), SqlIdentifier.unquoted("invoice"))).block();
            assertThat(invoice.id).isNotNull();
        });
    }

    @Test
    void withoutSpringDataOrItsMappingContextThereIsNoCallback() {
        runner.run(context -> assertThat(context).doesNotHaveBean(VestaIdJdbcCallback.class)
                .doesNotHaveBean(VestaIdR2dbcCallback.class));
        runner.withClassLoader(new FilteredClassLoader("io.vesta.springdata")).withBean(JdbcMappingContext.class,
                JdbcMappingContext::new).run(context -> assertThat(context).hasNotFailed()
                        .doesNotHaveBean(VestaIdJdbcCallback.class));
    }
}
