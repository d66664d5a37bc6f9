package io.vesta.springdata;

import io.vesta.IdFormat;
import io.vesta.IdPropertyType;
import io.vesta.IdService;
import io.vesta.SegmentNumbers;
import io.vesta.VestaId;
import org.springframework.data.mapping.PersistentPropertyAccessor;
import org.springframework.data.relational.core.mapping.RelationalMappingContext;
import org.springframework.data.relational.core.mapping.RelationalPersistentEntity;
import org.springframework.data.relational.core.mapping.RelationalPersistentProperty;

import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Fills the {@link VestaId} property of a Spring Data Relational aggregate root when it is unset ({@code null}, or
 * {@code 0} for a {@code long}), through Spring Data's own property accessor: a mutable property is set, an
 * immutable one is replaced by its wither ({@code withId}), and the aggregate to save is what this returns. A value
 * the caller set is kept. With {@code @VestaId(segment = "orders")} the value is the tag's next dense number from
 * {@link SegmentNumbers} instead of a Vesta ID; a {@code String} property takes the ID in the {@link IdFormat} of
 * {@code @VestaId(format = ...)}, decimal digits without one. Shared by the JDBC and R2DBC callbacks.
 */
public final class VestaIdAssigner {

    private final IdService idService;
    private final RelationalMappingContext mappingContext;
    private final SegmentNumbers segments;
    private final Map<Class<?>, Optional<Target>> targets = new ConcurrentHashMap<>();

    public VestaIdAssigner(IdService idService, RelationalMappingContext mappingContext) {
        this(idService, mappingContext, null);
    }

    /**
     * @param segments what {@code @VestaId(segment = "...")} properties are filled from; {@code null} when the
     *        application has no segment numbers, and then saving such an aggregate fails naming the property and tag
     */
    public VestaIdAssigner(IdService idService, RelationalMappingContext mappingContext, SegmentNumbers segments) {
        this.idService = idService;
        this.mappingContext = mappingContext;
        this.segments = segments;
    }

    /**
     * The aggregate with its {@code @VestaId} property filled, or as it is when it has none or it is set.
     * @throws IllegalStateException if the {@code @VestaId} property is not a {@code Long}, {@code long} or {@code String}
     * @throws IllegalArgumentException if its format is refused: on a {@code Long}/{@code long}, beside a segment tag,
     *         or more than one, naming the entity, the property and the reason
     */
    @SuppressWarnings("unchecked")
    public <T> T assign(T aggregate) {
        Optional<Target> target = targets.computeIfAbsent(aggregate.getClass(), this::target);
        if (target.isEmpty()) {
            return aggregate;
        }
        RelationalPersistentProperty property = target.get().property();
        PersistentPropertyAccessor<T> accessor = ((RelationalPersistentEntity<T>) target.get().entity()).getPropertyAccessor(aggregate);
        if (!target.get().type().isUnset(accessor.getProperty(property))) {
            return aggregate;
        }
        accessor.setProperty(property, target.get().type().valueOf(next(target.get()), target.get().format()));
        return accessor.getBean();
    }

    private long next(Target target) {
        String tag = target.segment();
        if (tag.isEmpty()) {
            return idService.genId();
        }
        String where = "@VestaId(segment = \"" + tag + "\") on " + target.entity().getType().getName() + "."
                + target.property().getName();
        if (segments == null) {
            throw new IllegalStateException(where + " needs the segment numbers of tag '" + tag + "', but none were"
                    + " given: the Vesta starter gives the application's SegmentIdService (vesta.segment.enabled=true)");
        }
        try {
            return segments.nextId(tag);
        } catch (RuntimeException e) {
            throw new IllegalStateException(where + " could not take a number of tag '" + tag + "': " + e.getMessage(), e);
        }
    }

    private Optional<Target> target(Class<?> type) {
        RelationalPersistentEntity<?> entity = mappingContext.getPersistentEntity(type);
        if (entity == null) {
            return Optional.empty();
        }
        RelationalPersistentProperty property = entity.getPersistentProperty(VestaId.class);
        if (property == null) {
            return Optional.empty();
        }
        IdPropertyType idType = IdPropertyType.of(property.getType()).orElseThrow(() -> new IllegalStateException(
                "@VestaId on " + type.getName() + "." + property.getName() + " needs a Long, long or String property,"
                        + " but it is a " + property.getType().getName()));
        VestaId marker = property.findAnnotation(VestaId.class);
        IdFormat format = idType.format(marker, type.getName() + "." + property.getName());
        String segment = marker == null ? "" : marker.segment();
        if (!segment.isEmpty()) {
            SegmentNumbers.requireValidBizTag("@VestaId(segment) of " + type.getName() + "." + property.getName(), segment);
        }
        return Optional.of(new Target(entity, property, idType, format, segment));
    }

    private record Target(RelationalPersistentEntity<?> entity, RelationalPersistentProperty property, IdPropertyType type,
            IdFormat format, String segment) {
    }
}
