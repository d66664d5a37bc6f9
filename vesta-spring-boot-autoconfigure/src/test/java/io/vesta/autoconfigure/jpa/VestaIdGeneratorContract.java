package io.vesta.autoconfigure.jpa;

import io.vesta.Id;
import io.vesta.IdService;
import io.vesta.fixtures.jpa.entity.FieldOrder;
import io.vesta.fixtures.jpa.entity.GeneratedValueOrder;
import io.vesta.fixtures.jpa.entity.IdentityOrder;
import io.vesta.fixtures.jpa.entity.PrimitiveOrder;
import io.vesta.fixtures.jpa.entity.StringOrder;
import io.vesta.fixtures.jpa.pkg.PackageOrder;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import static io.vesta.autoconfigure.jpa.JpaTestSupport.MACHINE;
import static io.vesta.autoconfigure.jpa.JpaTestSupport.find;
import static io.vesta.autoconfigure.jpa.JpaTestSupport.generatorOf;
import static io.vesta.autoconfigure.jpa.JpaTestSupport.inTransaction;
import static io.vesta.autoconfigure.jpa.JpaTestSupport.persisted;
import static org.assertj.core.api.Assertions.assertThat;

/** What {@code @VestaId} does on real Hibernate, run against each database. */
abstract class VestaIdGeneratorContract {

    /** A runner whose contexts each get a database (or schema) of their own on this test's server. */
    abstract ApplicationContextRunner runner();

    @Test
    void everyFormOfVestaIdIsFilledAtPersistAndDecodesToThisNode() {
        runner().run(context -> {
            assertThat(context).hasNotFailed();
            Instant before = Instant.now();
            FieldOrder field = persisted(context, new FieldOrder("field"));
            GeneratedValueOrder generated = persisted(context, new GeneratedValueOrder("generated-value"));
            PackageOrder inPackage = persisted(context, new PackageOrder("package"));
            PrimitiveOrder primitive = persisted(context, new PrimitiveOrder(0, "primitive"));
            StringOrder string = persisted(context, new StringOrder(null, "string"));

            assertIssuedHere(context, field.getId(), before);
            assertIssuedHere(context, generated.getId(), before);
            assertIssuedHere(context, inPackage.getId(), before);
            assertIssuedHere(context, primitive.getId(), before);
            assertIssuedHere(context, Long.parseLong(string.getId()), before);

            assertThat(find(context, FieldOrder.class, field.getId()).getItem()).isEqualTo("field");
            assertThat(find(context, GeneratedValueOrder.class, generated.getId()).getItem()).isEqualTo("generated-value");
            assertThat(find(context, PackageOrder.class, inPackage.getId()).getItem()).isEqualTo("package");
            assertThat(find(context, PrimitiveOrder.class, primitive.getId()).getItem()).isEqualTo("primitive");
            assertThat(find(context, StringOrder.class, string.getId()).getItem()).isEqualTo("string");
        });
    }

    @Test
    void vestaIdOnThePackageGivesPlainGeneratedValueTheVestaGenerator() {
        runner().run(context -> {
            assertThat(generatorOf(context, PackageOrder.class)).isInstanceOf(VestaIdGenerator.class);
            assertThat(generatorOf(context, GeneratedValueOrder.class)).isInstanceOf(VestaIdGenerator.class);
            assertThat(generatorOf(context, FieldOrder.class)).isInstanceOf(VestaIdGenerator.class);
            assertThat(generatorOf(context, IdentityOrder.class)).isNotInstanceOf(VestaIdGenerator.class);
        });
    }

    @Test
    void idsTheCallerSetAreKept() {
        runner().run(context -> {
            IdService ids = context.getBean(IdService.class);
            long assigned = ids.makeId(12_345, 6, 7);
            FieldOrder field = persisted(context, new FieldOrder(assigned, "repaired"));
            PrimitiveOrder primitive = persisted(context, new PrimitiveOrder(assigned + 1, "repaired"));
            StringOrder string = persisted(context, new StringOrder("4242", "imported"));

            assertThat(field.getId()).isEqualTo(assigned);
            assertThat(primitive.getId()).isEqualTo(assigned + 1);
            assertThat(string.getId()).isEqualTo("4242");
            assertThat(find(context, FieldOrder.class, assigned).getItem()).isEqualTo("repaired");
            assertThat(find(context, PrimitiveOrder.class, assigned + 1).getItem()).isEqualTo("repaired");
            assertThat(find(context, StringOrder.class, "4242").getItem()).isEqualTo("imported");
        });
    }

    @Test
    void insertsGoToTheDriverInJdbcBatchesUnlikeIdentity() {
        runner().run(context -> {
            List<FieldOrder> orders = inTransaction(context, entityManager -> {
                List<FieldOrder> persisted = new ArrayList<>();
                for (int i = 0; i < 120; i++) {
                    FieldOrder order = new FieldOrder("batched-" + i);
                    entityManager.persist(order);
                    persisted.add(order);
                }
                for (int i = 0; i < 120; i++) {
                    entityManager.persist(new IdentityOrder("one-by-one-" + i));
                }
                return persisted;
            });
            CountingDataSource dataSource = context.getBean(CountingDataSource.class);

            CountingDataSource.Inserts vesta = dataSource.inserts("field_order");
            assertThat(vesta.rowsBatched).as(vesta.toString()).hasValue(120);
            assertThat(vesta.batches).as(vesta.toString()).hasValue(3); // 50 + 50 + 20
            assertThat(vesta.singles).as(vesta.toString()).hasValue(0);
            CountingDataSource.Inserts identity = dataSource.inserts("identity_order");
            assertThat(identity.singles).as(identity.toString()).hasValue(120);
            assertThat(identity.batches).as(identity.toString()).hasValue(0);

            assertThat(orders).extracting(FieldOrder::getId).doesNotHaveDuplicates().isSorted();
            long rows = inTransaction(context, entityManager -> entityManager
                    .createQuery("select count(o) from FieldOrder o", Long.class).getSingleResult());
            assertThat(rows).isEqualTo(120);
        });
    }

    private static void assertIssuedHere(ApplicationContext context, long id, Instant notBefore) {
        IdService ids = context.getBean(IdService.class);
        Id fields = ids.expId(id);
        assertThat(fields.machine()).isEqualTo(MACHINE);
        assertThat(fields.genMethod()).isZero();
        assertThat(ids.transTime(fields.time())).isBetween(notBefore.minusSeconds(1), Instant.now().plus(Duration.ofSeconds(1)));
    }
}
