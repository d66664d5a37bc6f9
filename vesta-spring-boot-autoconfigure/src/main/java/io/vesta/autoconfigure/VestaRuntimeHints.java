package io.vesta.autoconfigure;

import io.vesta.DecodedId;
import io.vesta.Id;
import org.springframework.aot.hint.BindingReflectionHintsRegistrar;
import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.TypeReference;

/**
 * What a Vesta application reads reflectively or as a resource, for Spring AOT and GraalVM native images:
 * <ul>
 * <li>the DDL scripts of the lease and segment tables ({@code io/vesta/machine/db/schema-*.sql},
 *     {@code io/vesta/segment/schema-*.sql}), which {@code TableScript} reads from the classpath, and the Lua scripts
 *     of the Redis leases ({@code io/vesta/machine/redis/*.lua});</li>
 * <li>Hibernate's integrator service file for {@code VestaIdIntegrator}, and the integrator and generator
 *     classes it loads and instantiates;</li>
 * <li>the decoded-ID records that Jackson writes in every mode ({@link DecodedId}, {@link Id}).</li>
 * </ul>
 * Named by type name, so that a module that is not on the classpath costs nothing. Registered in
 * {@code META-INF/spring/aot.factories}.
 */
public class VestaRuntimeHints implements RuntimeHintsRegistrar {

    static final String[] SCRIPTS = { "io/vesta/machine/db/schema-*.sql", "io/vesta/segment/schema-*.sql",
            "io/vesta/machine/redis/*.lua" };

    @Override
    public void registerHints(RuntimeHints hints, ClassLoader classLoader) {
        for (String pattern : SCRIPTS) {
            hints.resources().registerPattern(pattern);
        }
        hints.resources().registerPattern("META-INF/services/org.hibernate.integrator.spi.Integrator");
        for (String type : new String[] { "io.vesta.hibernate.VestaIdIntegrator", "io.vesta.hibernate.VestaIdGenerator" }) {
            hints.reflection().registerType(TypeReference.of(type), MemberCategory.INVOKE_PUBLIC_CONSTRUCTORS);
        }
        new BindingReflectionHintsRegistrar().registerReflectionHints(hints.reflection(), DecodedId.class, Id.class);
    }
}
