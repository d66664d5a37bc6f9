package io.vesta.hibernate;

import io.vesta.Id;
import io.vesta.IdFormat;
import io.vesta.hibernate.fixtures.entity.Base32Order;
import io.vesta.test.fixtures.jpa.entity.FieldOrder;
import io.vesta.hibernate.fixtures.entity.GeneratedValueOrder;
import io.vesta.hibernate.fixtures.entity.IdentityOrder;
import io.vesta.hibernate.fixtures.entity.PrimitiveOrder;
import io.vesta.hibernate.fixtures.entity.StringOrder;
import io.vesta.test.fixtures.jpa.pkg.PackageOrder;
import io.vesta.test.TestDatabase;
import io.vesta.test.TestSchema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static io.vesta.hibernate.TestSessionFactory.MACHINE;
import static org.assertj.core.api.Assertions.assertThat;

/** What {@code @VestaId} does on a real Hibernate {@code SessionFactory}, run against each database. */
abstract class VestaIdGeneratorContract {

    static final Class<?>[] ENTITIES = { FieldOrder.class, GeneratedValueOrder.class, PrimitiveOrder.class,
            StringOrder.class, IdentityOrder.class, PackageOrder.class, Base32Order.class };

    private TestSchema schema;

    /** The database this run of the contract is on. */
    abstract TestDatabase database();

    /** A {@code SessionFactory} of {@link #ENTITIES} in a schema of this test's own on {@link #database()}. */
    TestSessionFactory start() {
        schema = database().createSchema("vesta_hib");
        return TestSessionFactory.start(schema.url(), Map.of(), ENTITIES);
    }

    @AfterEach
    void dropSchema() {
        if (schema != null) {
            schema.close();
        }
    }

    @Test
    void everyFormOfVestaIdIsFilledAtPersistAndDecodesToThisNode() {
        try (TestSessionFactory hibernate = start()) {
            Instant before = Instant.now();
            FieldOrder field = hibernate.persisted(new FieldOrder("field"));
            GeneratedValueOrder generated = hibernate.persisted(new GeneratedValueOrder("generated-value"));
            PackageOrder inPackage = hibernate.persisted(new PackageOrder("package"));
            PrimitiveOrder primitive = hibernate.persisted(new PrimitiveOrder(0, "primitive"));
            StringOrder string = hibernate.persisted(new StringOrder(null, "string"));

            assertIssuedHere(hibernate, field.getId(), before);
            assertIssuedHere(hibernate, generated.getId(), before);
            assertIssuedHere(hibernate, inPackage.getId(), before);
            assertIssuedHere(hibernate, primitive.getId(), before);
            assertIssuedHere(hibernate, Long.parseLong(string.getId()), before);

            assertThat(hibernate.find(FieldOrder.class, field.getId()).getItem()).isEqualTo("field");
            assertThat(hibernate.find(GeneratedValueOrder.class, generated.getId()).getItem()).isEqualTo("generated-value");
            assertThat(hibernate.find(PackageOrder.class, inPackage.getId()).getItem()).isEqualTo("package");
            assertThat(hibernate.find(PrimitiveOrder.class, primitive.getId()).getItem()).isEqualTo("primitive");
            assertThat(hibernate.find(StringOrder.class, string.getId()).getItem()).isEqualTo("string");
        }
    }

    @Test
    void vestaIdOnThePackageGivesPlainGeneratedValueTheVestaGenerator() {
        try (TestSessionFactory hibernate = start()) {
            assertThat(hibernate.generatorOf(PackageOrder.class)).isInstanceOf(VestaIdGenerator.class);
            assertThat(hibernate.generatorOf(GeneratedValueOrder.class)).isInstanceOf(VestaIdGenerator.class);
            assertThat(hibernate.generatorOf(FieldOrder.class)).isInstanceOf(VestaIdGenerator.class);
            assertThat(hibernate.generatorOf(IdentityOrder.class)).isNotInstanceOf(VestaIdGenerator.class);
        }
    }

    @Test
    void idsTheCallerSetAreKept() {
        try (TestSessionFactory hibernate = start()) {
            long assigned = hibernate.ids.makeId(12_345, 6, 7);
            FieldOrder field = hibernate.persisted(new FieldOrder(assigned, "repaired"));
            PrimitiveOrder primitive = hibernate.persisted(new PrimitiveOrder(assigned + 1, "repaired"));
            StringOrder string = hibernate.persisted(new StringOrder("4242", "imported"));

            assertThat(field.getId()).isEqualTo(assigned);
            assertThat(primitive.getId()).isEqualTo(assigned + 1);
            assertThat(string.getId()).isEqualTo("4242");
            assertThat(hibernate.find(FieldOrder.class, assigned).getItem()).isEqualTo("repaired");
            assertThat(hibernate.find(PrimitiveOrder.class, assigned + 1).getItem()).isEqualTo("repaired");
            assertThat(hibernate.find(StringOrder.class, "4242").getItem()).isEqualTo("imported");
        }
    }

    @Test
    void aStringIdentifierWithAFormatGetsTheIdInThatFormAndKeepsAnIdTheCallerSet() {
        try (TestSessionFactory hibernate = start()) {
            Instant before = Instant.now();
            List<String> ids = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                ids.add(hibernate.persisted(new Base32Order(null, "base32-" + i)).getId());
            }
            assertThat(ids).allSatisfy(id -> assertThat(id).hasSize(IdFormat.BASE32_LENGTH)
                    .isEqualTo(IdFormat.BASE32.format(IdFormat.BASE32.parse(id))));
            assertThat(ids).as("base 32 sorts as the IDs were issued").doesNotHaveDuplicates().isSorted();
            for (String id : ids) {
                assertIssuedHere(hibernate, IdFormat.BASE32.parse(id), before);
            }
            assertThat(hibernate.find(Base32Order.class, ids.get(3)).getItem()).isEqualTo("base32-3");
            hibernate.persisted(new Base32Order("0000000000042", "imported"));
            assertThat(hibernate.find(Base32Order.class, "0000000000042").getItem()).isEqualTo("imported");
        }
    }

    @Test
    void insertsGoToTheDriverInJdbcBatchesUnlikeIdentity() {
        try (TestSessionFactory hibernate = start()) {
            List<FieldOrder> orders = hibernate.inTransaction(session -> {
                List<FieldOrder> persisted = new ArrayList<>();
                for (int i = 0; i < 120; i++) {
                    FieldOrder order = new FieldOrder("batched-" + i);
                    session.persist(order);
                    persisted.add(order);
                }
                for (int i = 0; i < 120; i++) {
                    session.persist(new IdentityOrder("one-by-one-" + i));
                }
                return persisted;
            });

            CountingDataSource.Inserts vesta = hibernate.dataSource.inserts("field_order");
            assertThat(vesta.rowsBatched).as(vesta.toString()).hasValue(120);
            assertThat(vesta.batches).as(vesta.toString()).hasValue(3); // 50 + 50 + 20
            assertThat(vesta.singles).as(vesta.toString()).hasValue(0);
            CountingDataSource.Inserts identity = hibernate.dataSource.inserts("identity_order");
            assertThat(identity.singles).as(identity.toString()).hasValue(120);
            assertThat(identity.batches).as(identity.toString()).hasValue(0);

            assertThat(orders).extracting(FieldOrder::getId).doesNotHaveDuplicates().isSorted();
            long rows = hibernate.inTransaction(session -> session
                    .createQuery("select count(o) from FieldOrder o", Long.class).getSingleResult());
            assertThat(rows).isEqualTo(120);
        }
    }

    private static void assertIssuedHere(TestSessionFactory hibernate, long id, Instant notBefore) {
        Id fields = hibernate.ids.expId(id);
        assertThat(fields.machine()).isEqualTo(MACHINE);
        assertThat(fields.genMethod()).isZero();
        assertThat(hibernate.ids.transTime(fields.time())).isBetween(notBefore.minusSeconds(1),
                Instant.now().plus(Duration.ofSeconds(1)));
    }
}
