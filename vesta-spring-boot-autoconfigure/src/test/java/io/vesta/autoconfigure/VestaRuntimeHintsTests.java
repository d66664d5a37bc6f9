package io.vesta.autoconfigure;

import io.vesta.DecodedId;
import org.junit.jupiter.api.Test;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.core.io.support.SpringFactoriesLoader;

import static org.assertj.core.api.Assertions.assertThat;

class VestaRuntimeHintsTests {

    @Test
    void theRegistrarIsFoundWhereSpringAotLooks() {
        assertThat(SpringFactoriesLoader.forResourceLocation("META-INF/spring/aot.factories")
                .load(RuntimeHintsRegistrar.class)).hasAtLeastOneElementOfType(VestaRuntimeHints.class);
    }

    @Test
    void everyShippedScriptTheIntegratorAndTheDecodedIdAreCovered() {
        RuntimeHints hints = new RuntimeHints();
        new VestaRuntimeHints().registerHints(hints, getClass().getClassLoader());

        for (String table : new String[] { "machine/db", "segment" }) {
            for (String database : new String[] { "postgresql", "mysql", "h2" }) {
                String script = "io/vesta/" + table + "/schema-" + database + ".sql";
                assertThat(getClass().getClassLoader().getResource(script)).as(script).isNotNull();
                assertThat(RuntimeHintsPredicates.resource().forResource(script)).accepts(hints);
            }
        }
        for (String name : new String[] { "read", "claim", "renew", "end" }) {
            String script = "io/vesta/machine/redis/" + name + ".lua";
            assertThat(getClass().getClassLoader().getResource(script)).as(script).isNotNull();
            assertThat(RuntimeHintsPredicates.resource().forResource(script)).accepts(hints);
        }
        assertThat(RuntimeHintsPredicates.resource().forResource("META-INF/services/org.hibernate.integrator.spi.Integrator"))
                .accepts(hints);
        assertThat(RuntimeHintsPredicates.reflection().onType(io.vesta.hibernate.VestaIdGenerator.class)).accepts(hints);
        assertThat(RuntimeHintsPredicates.reflection().onType(DecodedId.class)).accepts(hints);
    }
}
