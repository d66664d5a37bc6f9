package io.vesta.hibernate;

import io.vesta.EmbeddedIdService;
import io.vesta.test.fixtures.jpa.bad.IntegerOrder;
import io.vesta.test.fixtures.jpa.entity.FieldOrder;
import io.vesta.test.fixtures.jpa.pkg.PackageOrder;
import org.hibernate.SessionFactory;
import org.junit.jupiter.api.Test;

import java.util.Collections;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/** How the generator finds its {@code IdService}, and what it refuses, on plain Hibernate over H2. */
class VestaIdGeneratorTests {

    @Test
    void twoSessionFactoriesInOneJvmEachFillIdsFromTheirOwnIdService() {
        try (EmbeddedIdService three = EmbeddedIdService.builder().machineId(3).build();
                EmbeddedIdService four = EmbeddedIdService.builder().machineId(4).build();
                CountingDataSource firstDatabase = new CountingDataSource(TestSessionFactory.h2());
                CountingDataSource secondDatabase = new CountingDataSource(TestSessionFactory.h2());
                SessionFactory first = TestSessionFactory.sessionFactory(firstDatabase, three, Map.of(),
                        FieldOrder.class, PackageOrder.class);
                SessionFactory second = TestSessionFactory.sessionFactory(secondDatabase, four, Map.of(),
                        FieldOrder.class, PackageOrder.class)) {
            // Interleaved, after both SessionFactories exist: a generator that kept the last factory's service in
            // static state would give both the same machine.
            long a = persisted(first, new FieldOrder("first")).getId();
            long b = persisted(second, new FieldOrder("second")).getId();
            long c = persisted(first, new PackageOrder("first again")).getId();
            long d = persisted(second, new PackageOrder("second again")).getId();
            assertThat(three.expId(a).machine()).isEqualTo(3);
            assertThat(four.expId(b).machine()).isEqualTo(4);
            assertThat(three.expId(c).machine()).isEqualTo(3);
            assertThat(four.expId(d).machine()).isEqualTo(4);
        }
    }

    @Test
    void aHibernateThatWasNotGivenAnIdServiceSaysWhatToSet() {
        assertThat(rootCauseOfStarting(Collections.singletonMap(VestaIdGenerator.ID_SERVICE, null), FieldOrder.class))
                .hasMessageContaining("@VestaId on " + FieldOrder.class.getName() + ".id needs an IdService")
                .hasMessageContaining("Hibernate setting 'vesta.id-service' is not set")
                .hasMessageContaining("with plain Hibernate, put your IdService into the settings under 'vesta.id-service'");
    }

    /**
     * A bootstrap that may not touch the database (hibernate.boot.allow_jdbc_metadata_access=false) builds a metamodel
     * only: Spring Data JPA's AOT repositories build one at build time, without the application's settings. It starts
     * without an IdService; an insert through it would be refused with the same words.
     */
    @Test
    void aMetamodelOnlyBootstrapStartsWithoutAnIdServiceAndRefusesInserts() {
        Map<String, Object> settings = new java.util.HashMap<>();
        settings.put(VestaIdGenerator.ID_SERVICE, null);
        settings.put("hibernate.boot.allow_jdbc_metadata_access", "false");
        settings.put(org.hibernate.cfg.AvailableSettings.HBM2DDL_AUTO, "none");
        settings.put(org.hibernate.cfg.AvailableSettings.DIALECT, "org.hibernate.dialect.H2Dialect");
        try (TestSessionFactory hibernate = TestSessionFactory.start(TestSessionFactory.h2(), settings, FieldOrder.class)) {
            Throwable refused = catchThrowable(() -> persisted(hibernate.sessionFactory, new FieldOrder("tea")));
            while (refused != null && refused.getCause() != null && refused.getCause() != refused) {
                refused = refused.getCause();
            }
            assertThat(refused).isNotNull().hasMessageContaining("@VestaId on " + FieldOrder.class.getName()
                    + ".id needs an IdService").hasMessageContaining("'vesta.id-service' is not set");
        }
    }

    @Test
    void anIdServiceSettingOfAnotherTypeIsNamed() {
        assertThat(rootCauseOfStarting(Map.of(VestaIdGenerator.ID_SERVICE, "machine 7"), FieldOrder.class))
                .hasMessageContaining("@VestaId on " + FieldOrder.class.getName() + ".id needs an IdService")
                .hasMessageContaining("Hibernate setting 'vesta.id-service' is a java.lang.String");
    }

    @Test
    void aVestaIdOnAnIdentifierThatCannotHoldOneFailsStartupNamingIt() {
        assertThat(rootCauseOfStarting(Map.of(), IntegerOrder.class)).hasMessageContaining("@VestaId on "
                + IntegerOrder.class.getName() + ".id needs a Long, long or String identifier, but it is a java.lang.Integer");
    }

    private static Throwable rootCauseOfStarting(Map<String, Object> settings, Class<?> entity) {
        Throwable failure = catchThrowable(() -> TestSessionFactory.start(TestSessionFactory.h2(), settings, entity).close());
        assertThat(failure).as("startup failure").isNotNull();
        while (failure.getCause() != null && failure.getCause() != failure) {
            failure = failure.getCause();
        }
        return failure;
    }

    private static <T> T persisted(SessionFactory sessionFactory, T entity) {
        return sessionFactory.fromTransaction(session -> {
            session.persist(entity);
            return entity;
        });
    }
}
