package io.vesta.springdata;

import io.r2dbc.postgresql.PostgresqlConnectionConfiguration;
import io.r2dbc.postgresql.PostgresqlConnectionFactory;
import io.r2dbc.spi.ConnectionFactory;
import io.vesta.EmbeddedIdService;
import io.vesta.IdService;
import io.vesta.IdType;
import io.vesta.test.TestDatabase;
import org.junit.jupiter.api.Test;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.ComponentScan;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.FilterType;
import org.springframework.data.r2dbc.config.AbstractR2dbcConfiguration;
import org.springframework.data.r2dbc.mapping.R2dbcMappingContext;
import org.springframework.data.r2dbc.repository.config.EnableR2dbcRepositories;
import org.springframework.data.repository.reactive.ReactiveCrudRepository;
import reactor.core.publisher.Flux;

import java.net.URI;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Spring Data R2DBC repositories on PostgreSQL through r2dbc-postgresql, with the callback as the only Vesta bean. */
class VestaIdR2dbcCallbackTests {

    static final long MACHINE = 22;
    static final Duration WAIT = Duration.ofSeconds(30);

    interface Orders extends ReactiveCrudRepository<Entities.Order, Long> {
    }

    interface Tickets extends ReactiveCrudRepository<Entities.Ticket, String> {
    }

    @Test
    void savedEntitiesGetVestaIdsAndAreInserted() throws Exception {
        try (TestTables schema = TestTables.create(TestDatabase.POSTGRESQL);
                AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext()) {
            context.registerBean(TestTables.class, () -> schema);
            context.register(R2dbcConfig.class);
            context.refresh();
            Orders orders = context.getBean(Orders.class);
            IdService ids = context.getBean(IdService.class);

            List<Long> saved = orders.saveAll(Flux.just(new Entities.Order("tea"), new Entities.Order("rice"),
                    new Entities.Order("miso"))).map(Entities.Order::getId).collectList().block(WAIT);

            assertThat(saved).hasSize(3).doesNotContainNull().doesNotHaveDuplicates()
                    .allSatisfy(id -> assertThat(ids.expId(id).machine()).isEqualTo(MACHINE));
            assertThat(schema.count("orders")).isEqualTo(3);
            assertThat(orders.findById(saved.get(2)).block(WAIT).getItem()).isEqualTo("miso");

            Entities.Ticket ticket = context.getBean(Tickets.class).save(new Entities.Ticket(null, "no coffee")).block(WAIT);
            assertThat(ticket.id()).matches("\\d+");
            assertThat(ids.expId(Long.parseLong(ticket.id())).machine()).isEqualTo(MACHINE);
            assertThat(schema.count("tickets")).isEqualTo(1);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableR2dbcRepositories(considerNestedRepositories = true, basePackageClasses = VestaIdR2dbcCallbackTests.class,
            includeFilters = @ComponentScan.Filter(type = FilterType.ASSIGNABLE_TYPE, classes = { Orders.class, Tickets.class }))
    static class R2dbcConfig extends AbstractR2dbcConfiguration {

        private final TestTables schema;

        R2dbcConfig(TestTables schema) {
            this.schema = schema;
        }

        @Override
        @Bean
        public ConnectionFactory connectionFactory() {
            URI server = schema.server();
            return new PostgresqlConnectionFactory(PostgresqlConnectionConfiguration.builder().host(server.getHost())
                    .port(server.getPort() < 0 ? 5432 : server.getPort()).database(server.getPath().substring(1))
                    .username(schema.user()).schema(schema.name).build());
        }

        @Bean(destroyMethod = "close")
        EmbeddedIdService idService() {
            return EmbeddedIdService.builder().type(IdType.MIN_GRANULARITY).machineId(MACHINE).build();
        }

        @Bean
        VestaIdR2dbcCallback vestaIdR2dbcCallback(IdService idService, R2dbcMappingContext mappingContext) {
            return new VestaIdR2dbcCallback(new VestaIdAssigner(idService, mappingContext));
        }
    }
}
