package io.vesta.autoconfigure.client;

import io.vesta.client.RemoteIdServiceBuilder;

/**
 * Customizes the {@link RemoteIdServiceBuilder} of client mode after {@code vesta.client.*} is applied and before
 * it is built, so the builder still checks what a customizer sets. Every bean of this type is applied, in
 * {@link org.springframework.core.annotation.Order @Order}.
 */
@FunctionalInterface
public interface RemoteIdServiceBuilderCustomizer {

    void customize(RemoteIdServiceBuilder builder);
}
