package io.vesta.hibernate;

import io.vesta.IdFormat;
import io.vesta.IdPropertyType;
import io.vesta.IdService;
import io.vesta.SegmentNumbers;
import io.vesta.VestaId;
import org.hibernate.MappingException;
import org.hibernate.engine.config.spi.ConfigurationService;
import org.hibernate.engine.spi.SharedSessionContractImplementor;
import org.hibernate.generator.AnnotationBasedGenerator;
import org.hibernate.generator.BeforeExecutionGenerator;
import org.hibernate.generator.EventType;
import org.hibernate.generator.EventTypeSets;
import org.hibernate.generator.GeneratorCreationContext;
import org.hibernate.id.IdentifierGenerationException;

import java.lang.reflect.Field;
import java.lang.reflect.Member;
import java.lang.reflect.Method;
import java.util.EnumSet;
import java.util.Map;

/**
 * The Hibernate generator behind {@link VestaId}: a {@code Long}, {@code long} or {@code String} identifier gets
 * the next ID of the {@link IdService} registered with the {@code SessionFactory} under {@link #ID_SERVICE}, a
 * {@code String} in the {@link IdFormat} of {@code @VestaId(format = ...)} (decimal digits without one).
 * {@link VestaIdIntegrator} gives it to the identifiers {@code @VestaId} marks.
 * <p>
 * The ID is known before the INSERT, so Hibernate batches inserts ({@code hibernate.jdbc.batch_size}), which it
 * cannot do for {@code IDENTITY} columns. An ID the caller set before {@code persist} is kept: a {@code null}
 * ({@code 0} for a primitive {@code long}) is what asks for a new one.
 * <p>
 * The {@code IdService} is a setting of each {@code SessionFactory}, not static state, so two application contexts
 * in one JVM each fill IDs from their own. The Vesta Spring Boot starter sets it on every
 * {@code EntityManagerFactory} of a context with an {@code IdService}; plain Hibernate puts it into its properties
 * itself: {@code settings.put(VestaIdGenerator.ID_SERVICE, idService)}.
 */
public final class VestaIdGenerator implements BeforeExecutionGenerator, AnnotationBasedGenerator<VestaId> {

    /** The Hibernate setting (an {@link IdService} object) that {@code @VestaId} identifiers are filled from. */
    public static final String ID_SERVICE = "vesta.id-service";

    /** The Hibernate setting (a {@link SegmentNumbers} object) that {@code @VestaId(segment = "...")} identifiers are filled from. */
    public static final String SEGMENT_NUMBERS = "vesta.segment-numbers";

    private IdService idService;

    private SegmentNumbers segments;

    /** The segment tag of {@code @VestaId(segment = ...)}, or null for Vesta IDs. */
    private String bizTag;

    private String attribute;

    /** Why there is no IdService, in a metamodel-only bootstrap that started without one; null otherwise. */
    private String missingIdService;

    private IdPropertyType type;

    /** The text form of a {@code String} identifier, {@code @VestaId(format = ...)}; decimal when unset. */
    private IdFormat format;

    /**
     * Creates the generator for one identifier, {@code @VestaId} on a package as well as on a field; Hibernate then
     * calls {@link #initialize}.
     */
    public VestaIdGenerator() {
    }

    @Override
    public void initialize(VestaId annotation, Member member, GeneratorCreationContext context) {
        String attribute = context.getPersistentClass().getEntityName() + "."
                + (context.getProperty() != null ? context.getProperty().getName() : member.getName());
        Class<?> memberType = memberType(member, context);
        this.type = IdPropertyType.of(memberType).orElseThrow(() -> new MappingException("@VestaId on " + attribute
                + " needs a Long, long or String identifier, but it is "
                + (memberType == null ? "of an unknown type" : "a " + memberType.getName())));
        try {
            this.format = type.format(annotation, attribute);
        } catch (IllegalArgumentException e) {
            throw new MappingException(e.getMessage(), e);
        }
        Map<String, Object> settings = context.getServiceRegistry().requireService(ConfigurationService.class).getSettings();
        this.attribute = attribute;
        if (!annotation.segment().isEmpty()) {
            initializeSegment(annotation.segment(), attribute, settings);
            return;
        }
        Object idService = settings.get(ID_SERVICE);
        if (!(idService instanceof IdService ids)) {
            String problem = "@VestaId on " + attribute + " needs an IdService, but the Hibernate setting '"
                    + ID_SERVICE + "' is " + (idService == null ? "not set" : "a " + idService.getClass().getName())
                    + ". The Vesta starter sets it on every EntityManagerFactory of an application context that has an"
                    + " IdService bean; with plain Hibernate, put your IdService into the settings under '"
                    + ID_SERVICE + "'.";
            // A bootstrap that may not touch the database builds a metamodel only (Spring Data JPA's AOT repositories
            // build one at build time, without the application's settings): it may start, and refuses at an insert.
            if (idService != null || !metamodelOnly(settings)) {
                throw new MappingException(problem);
            }
            this.missingIdService = problem;
            return;
        }
        this.idService = ids;
    }

    @Override
    public Object generate(SharedSessionContractImplementor session, Object owner, Object currentValue,
            EventType eventType) {
        if (!type.isUnset(currentValue)) {
            return currentValue;
        }
        if (bizTag != null) {
            return type.valueOf(nextSegmentNumber());
        }
        if (idService == null) {
            throw new IdentifierGenerationException(missingIdService);
        }
        return type.valueOf(idService.genId(), format);
    }

    @Override
    public EnumSet<EventType> getEventTypes() {
        return EventTypeSets.INSERT_ONLY;
    }

    @Override
    public boolean allowAssignedIdentifiers() {
        return true;
    }

    private void initializeSegment(String tag, String attribute, Map<String, Object> settings) {
        try {
            this.bizTag = SegmentNumbers.requireValidBizTag("@VestaId(segment) of " + attribute, tag);
        } catch (IllegalArgumentException e) {
            throw new MappingException(e.getMessage(), e);
        }
        Object segments = settings.get(SEGMENT_NUMBERS);
        if (segments instanceof SegmentNumbers numbers) {
            this.segments = numbers;
            return;
        }
        String problem = "@VestaId(segment = \"" + tag + "\") on " + attribute + " needs the segment numbers of tag '" + tag
                + "', but the Hibernate setting '" + SEGMENT_NUMBERS + "' is " + (segments == null ? "not set"
                        : "a " + segments.getClass().getName()) + ". The Vesta starter sets it when the application has a"
                + " SegmentIdService (vesta.segment.enabled=true); with plain Hibernate, put your SegmentIdService into the"
                + " settings under '" + SEGMENT_NUMBERS + "'.";
        if (segments != null || !metamodelOnly(settings)) {
            throw new MappingException(problem);
        }
        this.missingIdService = problem;
    }

    private long nextSegmentNumber() {
        if (segments == null) {
            throw new IdentifierGenerationException(missingIdService);
        }
        try {
            return segments.nextId(bizTag);
        } catch (RuntimeException e) {
            throw new IdentifierGenerationException("@VestaId(segment = \"" + bizTag + "\") on " + attribute
                    + " could not take a number of tag '" + bizTag + "': " + e.getMessage(), e);
        }
    }

    /** hibernate.boot.allow_jdbc_metadata_access=false: Hibernate builds its model without a database to insert into. */
    private static boolean metamodelOnly(Map<String, Object> settings) {
        Object access = settings.get("hibernate.boot.allow_jdbc_metadata_access");
        return access != null && "false".equalsIgnoreCase(access.toString().trim());
    }

    private static Class<?> memberType(Member member, GeneratorCreationContext context) {
        if (member instanceof Field field) {
            return field.getType();
        }
        if (member instanceof Method method) {
            return method.getReturnType();
        }
        return context.getType().getReturnedClass();
    }
}
