package io.vesta.hibernate;

import io.vesta.hibernate.fixtures.access.GetterOrder;
import io.vesta.hibernate.fixtures.access.InheritedOrder;
import io.vesta.hibernate.fixtures.access.MisplacedOrder;
import io.vesta.hibernate.fixtures.bad.FormattedLongOrder;
import io.vesta.hibernate.fixtures.bad.FormattedSegmentOrder;
import io.vesta.hibernate.fixtures.bad.TwoFormatsOrder;
import io.vesta.hibernate.fixtures.bad.TwoGeneratorsOrder;
import io.vesta.hibernate.fixtures.entity.IdentityOrder;
import io.vesta.test.fixtures.jpa.pkg.OwnSequenceOrder;
import io.vesta.test.fixtures.jpa.pkg.PackageOrder;
import org.hibernate.integrator.spi.Integrator;
import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.ServiceLoader;

import static io.vesta.hibernate.TestSessionFactory.MACHINE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Which identifiers get the Vesta generator, read as Hibernate reads the mapping. */
class VestaIdIntegratorTests {

    @Test
    void hibernateFindsTheIntegratorThroughTheServiceLoader() {
        assertThat(ServiceLoader.load(Integrator.class)).hasAtLeastOneElementOfType(VestaIdIntegrator.class);
    }

    @Test
    void aVestaIdOnTheGetterOfAPropertyAccessIdentifierIsFilled() {
        try (TestSessionFactory hibernate = start(GetterOrder.class)) {
            assertThat(hibernate.generatorOf(GetterOrder.class)).isInstanceOf(VestaIdGenerator.class);
            GetterOrder order = hibernate.persisted(new GetterOrder("through the getter"));
            assertThat(hibernate.ids.expId(order.getId()).machine()).isEqualTo(MACHINE);
        }
    }

    @Test
    void aVestaIdOnAMemberHibernateDoesNotReadIsIgnoredAsHibernateIgnoresIt() {
        try (TestSessionFactory hibernate = start(MisplacedOrder.class)) {
            assertThat(hibernate.generatorOf(MisplacedOrder.class)).isNotInstanceOf(VestaIdGenerator.class);
        }
    }

    @Test
    void anIdentifierDeclaredInAMappedSuperclassIsFilled() {
        try (TestSessionFactory hibernate = start(InheritedOrder.class)) {
            InheritedOrder order = hibernate.persisted(new InheritedOrder("inherited"));
            assertThat(hibernate.ids.expId(order.getId()).machine()).isEqualTo(MACHINE);
        }
    }

    @Test
    void thePackagesVestaIdLeavesAnIdentifierWithAGeneratorOfItsOwnAndOtherStrategiesAlone() {
        try (TestSessionFactory hibernate = start(PackageOrder.class, OwnSequenceOrder.class, IdentityOrder.class)) {
            assertThat(hibernate.generatorOf(PackageOrder.class)).isInstanceOf(VestaIdGenerator.class);
            assertThat(hibernate.generatorOf(OwnSequenceOrder.class)).isNotInstanceOf(VestaIdGenerator.class);
            assertThat(hibernate.generatorOf(IdentityOrder.class)).isNotInstanceOf(VestaIdGenerator.class);
            assertThat(hibernate.persisted(new OwnSequenceOrder()).getId()).isNotNull();
        }
    }

    @Test
    void aVestaIdBesideAnotherGeneratorAnnotationFailsStartupNamingBoth() {
        assertThatThrownBy(() -> start(TwoGeneratorsOrder.class).close())
                .hasMessageContaining("Identifier attribute '" + TwoGeneratorsOrder.class.getName() + ".id'"
                        + " has too many generator annotations")
                .hasMessageContaining("io.vesta.VestaId").hasMessageContaining("org.hibernate.annotations.UuidGenerator");
    }

    @Test
    void aFormatOnALongIdentifierFailsStartupNamingTheEntityThePropertyAndTheReason() {
        assertThatThrownBy(() -> start(FormattedLongOrder.class).close()).hasStackTraceContaining("@VestaId(format = BASE62) on "
                + FormattedLongOrder.class.getName() + ".id needs a String property, but it is a java.lang.Long, which"
                + " holds the ID itself");
    }

    @Test
    void aFormatBesideASegmentFailsStartupNamingTheEntityThePropertyAndTheReason() {
        assertThatThrownBy(() -> start(FormattedSegmentOrder.class).close()).hasStackTraceContaining(
                "@VestaId(format = BASE32) on " + FormattedSegmentOrder.class.getName() + ".id cannot be combined with"
                        + " segment = \"orders\"");
    }

    @Test
    void twoFormatsFailStartupNamingTheEntityAndTheProperty() {
        assertThatThrownBy(() -> start(TwoFormatsOrder.class).close()).hasStackTraceContaining("@VestaId(format) on "
                + TwoFormatsOrder.class.getName() + ".id takes at most one format, but it has 2: [BASE32, BASE62]");
    }

    private static TestSessionFactory start(Class<?>... entities) {
        return TestSessionFactory.start(TestSessionFactory.h2(), Map.of(), entities);
    }
}
