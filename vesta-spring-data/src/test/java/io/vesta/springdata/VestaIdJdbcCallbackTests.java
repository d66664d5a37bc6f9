package io.vesta.springdata;

import com.zaxxer.hikari.HikariDataSource;
import io.vesta.EmbeddedIdService;
import io.vesta.IdFormat;
import io.vesta.IdService;
import io.vesta.IdType;
import io.vesta.segment.SegmentIdService;
import io.vesta.segment.SegmentSchema;
import io.vesta.test.TestDatabase;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.ComponentScan;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.FilterType;
import org.springframework.data.jdbc.repository.config.AbstractJdbcConfiguration;
import org.springframework.data.jdbc.repository.config.EnableJdbcRepositories;
import org.springframework.data.relational.core.mapping.RelationalMappingContext;
import org.springframework.data.repository.CrudRepository;
import org.springframework.jdbc.core.namedparam.NamedParameterJdbcOperations;
import org.springframework.jdbc.core.namedparam.NamedParameterJdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.PlatformTransactionManager;

import javax.sql.DataSource;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/** Spring Data JDBC repositories on H2, PostgreSQL and MariaDB, with the callback as the only Vesta bean. */
class VestaIdJdbcCallbackTests {

    static final long MACHINE = 21;

    interface Orders extends CrudRepository<Entities.Order, Long> {
    }

    interface Tickets extends CrudRepository<Entities.Ticket, String> {
    }

    interface Invoices extends CrudRepository<Entities.Invoice, Long> {
    }

    interface ShortTickets extends CrudRepository<Entities.ShortTicket, String> {
    }

    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void aStringPropertyWithAFormatTakesTheIdInThatForm(TestDatabase database) throws Exception {
        try (TestTables schema = TestTables.create(database);
                AnnotationConfigApplicationContext context = context(schema)) {
            ShortTickets tickets = context.getBean(ShortTickets.class);
            IdService ids = context.getBean(IdService.class);
            List<String> saved = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                saved.add(tickets.save(new Entities.ShortTicket(null, "ticket " + i)).id());
            }
            assertThat(saved).doesNotHaveDuplicates().isSorted().allSatisfy(id -> {
                assertThat(id).hasSize(IdFormat.BASE32_LENGTH);
                assertThat(ids.expId(IdFormat.BASE32.parse(id)).machine()).isEqualTo(MACHINE);
            });
            assertThat(tickets.findById(saved.get(2))).hasValueSatisfying(t -> assertThat(t.title()).isEqualTo("ticket 2"));
            assertThat(schema.count("tickets")).isEqualTo(5);
        }
    }

    @Test
    void aFormatOnALongOrBesideASegmentIsRefusedNamingTheEntityThePropertyAndTheReason() {
        try (EmbeddedIdService ids = EmbeddedIdService.builder().machineId(MACHINE).build()) {
            VestaIdAssigner assigner = new VestaIdAssigner(ids, new RelationalMappingContext());
            assertThatIllegalArgumentException().isThrownBy(() -> assigner.assign(new Entities.FormattedOrder(null, "tea")))
                    .withMessageStartingWith("@VestaId(format = BASE62) on " + Entities.FormattedOrder.class.getName()
                            + ".id needs a String property, but it is a java.lang.Long");
            assertThatIllegalArgumentException()
                    .isThrownBy(() -> assigner.assign(new Entities.FormattedSegmentTicket(null, "x")))
                    .withMessageStartingWith("@VestaId(format = BASE62) on " + Entities.FormattedSegmentTicket.class.getName()
                            + ".id cannot be combined with segment = \"tickets\"");
            assertThat(ids.idsIssued()).isZero();
        }
    }

    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void aSegmentPropertyTakesTheTagsDenseNumbers(TestDatabase database) throws Exception {
        try (TestTables schema = TestTables.create(database);
                AnnotationConfigApplicationContext context = context(schema)) {
            Invoices invoices = context.getBean(Invoices.class);
            List<Long> numbers = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                numbers.add(invoices.save(new Entities.Invoice(100 + i)).getId());
            }
            assertThat(numbers).containsExactly(1L, 2L, 3L, 4L, 5L);
            assertThat(schema.count("invoices")).isEqualTo(5);
        }
    }

    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void savedAggregatesGetVestaIdsAndAreInserted(TestDatabase database) throws Exception {
        try (TestTables schema = TestTables.create(database);
                AnnotationConfigApplicationContext context = context(schema)) {
            Orders orders = context.getBean(Orders.class);
            Tickets tickets = context.getBean(Tickets.class);
            IdService ids = context.getBean(IdService.class);

            List<Long> saved = new ArrayList<>();
            for (String item : new String[] { "tea", "rice", "miso" }) {
                Entities.Order order = orders.save(new Entities.Order(item));
                assertThat(order.getId()).isNotNull();
                saved.add(order.getId());
            }
            Iterable<Entities.Order> batch = orders.saveAll(List.of(new Entities.Order("nori"), new Entities.Order("yuzu")));
            batch.forEach(order -> saved.add(order.getId()));

            assertThat(saved).doesNotHaveDuplicates().isSorted()
                    .allSatisfy(id -> assertThat(ids.expId(id).machine()).isEqualTo(MACHINE));
            assertThat(schema.count("orders")).isEqualTo(5);
            assertThat(orders.findById(saved.get(1))).hasValueSatisfying(o -> assertThat(o.getItem()).isEqualTo("rice"));

            // An existing aggregate keeps its ID: the second save is an UPDATE.
            Entities.Order first = orders.findById(saved.get(0)).orElseThrow();
            first.setItem("green tea");
            assertThat(orders.save(first).getId()).isEqualTo(saved.get(0));
            assertThat(schema.count("orders")).isEqualTo(5);

            // An immutable aggregate is replaced through its wither, with the ID as a string.
            Entities.Ticket ticket = tickets.save(new Entities.Ticket(null, "printer on fire"));
            assertThat(ticket.id()).matches("\\d+");
            assertThat(ids.expId(Long.parseLong(ticket.id())).machine()).isEqualTo(MACHINE);
            assertThat(tickets.findById(ticket.id())).contains(ticket);
        }
    }

    private static AnnotationConfigApplicationContext context(TestTables schema) {
        AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext();
        context.registerBean(TestTables.class, () -> schema);
        context.register(JdbcConfig.class);
        context.refresh();
        return context;
    }

    @Configuration(proxyBeanMethods = false)
    @EnableJdbcRepositories(considerNestedRepositories = true, basePackageClasses = VestaIdJdbcCallbackTests.class,
            includeFilters = @ComponentScan.Filter(type = FilterType.ASSIGNABLE_TYPE, classes = { Orders.class, Tickets.class, Invoices.class,
                    ShortTickets.class }))
    static class JdbcConfig extends AbstractJdbcConfiguration {

        @Bean(destroyMethod = "close")
        HikariDataSource dataSource(TestTables schema) {
            HikariDataSource dataSource = new HikariDataSource();
            dataSource.setJdbcUrl(schema.jdbcUrl());
            dataSource.setMaximumPoolSize(2);
            return dataSource;
        }

        @Bean
        NamedParameterJdbcOperations namedParameterJdbcOperations(DataSource dataSource) {
            return new NamedParameterJdbcTemplate(dataSource);
        }

        @Bean
        PlatformTransactionManager transactionManager(DataSource dataSource) {
            return new DataSourceTransactionManager(dataSource);
        }

        @Bean(destroyMethod = "close")
        EmbeddedIdService idService() {
            return EmbeddedIdService.builder().type(IdType.MIN_GRANULARITY).machineId(MACHINE).build();
        }

        @Bean(destroyMethod = "close")
        SegmentIdService segments(DataSource dataSource) {
            SegmentSchema.initialize(dataSource, "vesta_segment");
            return SegmentIdService.builder().dataSource(dataSource).autoCreate(true).defaultStep(10).build();
        }

        @Bean
        VestaIdJdbcCallback vestaIdJdbcCallback(IdService idService, RelationalMappingContext mappingContext,
                SegmentIdService segments) {
            return new VestaIdJdbcCallback(new VestaIdAssigner(idService, mappingContext, segments));
        }
    }
}
