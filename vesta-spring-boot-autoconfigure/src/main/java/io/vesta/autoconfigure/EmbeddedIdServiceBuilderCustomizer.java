package io.vesta.autoconfigure;

import io.vesta.EmbeddedIdServiceBuilder;

/**
 * Customizes the {@link EmbeddedIdServiceBuilder} of an embedded node's {@code IdService} (and of a client's
 * embedded fallback) after {@code vesta.*} is applied and before it is built, so the builder still checks what a
 * customizer sets. Every bean of this type is applied, in {@link org.springframework.core.annotation.Order @Order}.
 * Not applied to a central server's two generators, whose gen-methods and shared machine ID are the server's.
 */
@FunctionalInterface
public interface EmbeddedIdServiceBuilderCustomizer {

    void customize(EmbeddedIdServiceBuilder builder);
}
