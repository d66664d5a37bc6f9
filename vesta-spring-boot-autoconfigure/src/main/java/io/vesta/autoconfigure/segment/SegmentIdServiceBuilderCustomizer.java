package io.vesta.autoconfigure.segment;

import io.vesta.segment.SegmentIdServiceBuilder;

/**
 * Customizes the {@link SegmentIdServiceBuilder} of segment mode after {@code vesta.segment.*} is applied and
 * before it is built, so the builder still checks what a customizer sets. Every bean of this type is applied, in
 * {@link org.springframework.core.annotation.Order @Order}.
 */
@FunctionalInterface
public interface SegmentIdServiceBuilderCustomizer {

    void customize(SegmentIdServiceBuilder builder);
}
