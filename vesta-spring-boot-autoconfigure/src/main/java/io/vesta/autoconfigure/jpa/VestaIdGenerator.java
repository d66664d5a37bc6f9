package io.vesta.autoconfigure.jpa;

import io.vesta.IdService;
import io.vesta.autoconfigure.VestaId;
import org.hibernate.MappingException;
import org.hibernate.engine.config.spi.ConfigurationService;
import org.hibernate.engine.spi.SharedSessionContractImplementor;
import org.hibernate.generator.AnnotationBasedGenerator;
import org.hibernate.generator.BeforeExecutionGenerator;
import org.hibernate.generator.EventType;
import org.hibernate.generator.EventTypeSets;
import org.hibernate.generator.GeneratorCreationContext;

import java.lang.reflect.Field;
import java.lang.reflect.Member;
import java.lang.reflect.Method;
import java.util.EnumSet;

/**
 * The Hibernate generator behind {@link VestaId}: a {@code Long}, {@code long} or {@code String} identifier gets
 * the next ID of the {@link IdService} registered with the {@code SessionFactory} under {@link #ID_SERVICE}.
 * <p>
 * The ID is known before the INSERT, so Hibernate batches inserts ({@code hibernate.jdbc.batch_size}), which it
 * cannot do for {@code IDENTITY} columns. An ID the caller set before {@code persist} is kept: a {@code null}
 * ({@code 0} for a primitive {@code long}) is what asks for a new one.
 * <p>
 * The {@code IdService} is a setting of each {@code SessionFactory}, not static state, so two application contexts
 * in one JVM each fill IDs from their own. Spring Boot's {@code EntityManagerFactory} and any other
 * {@code EntityManagerFactory} bean of a context with an {@code IdService} get it from the Vesta starter; plain
 * Hibernate puts it into its properties itself: {@code settings.put(VestaIdGenerator.ID_SERVICE, idService)}.
 */
public final class VestaIdGenerator implements BeforeExecutionGenerator, AnnotationBasedGenerator<VestaId> {

    /** The Hibernate setting (an {@link IdService} object) that {@code @VestaId} identifiers are filled from. */
    public static final String ID_SERVICE = "vesta.id-service";

    private IdService idService;

    private IdKind kind;

    /**
     * Hibernate creates the generator with this constructor for {@code @VestaId} on a package as well as on a
     * field, and then calls {@link #initialize}.
     */
    public VestaIdGenerator() {
    }

    @Override
    public void initialize(VestaId annotation, Member member, GeneratorCreationContext context) {
        String attribute = context.getPersistentClass().getEntityName() + "."
                + (context.getProperty() != null ? context.getProperty().getName() : member.getName());
        this.kind = IdKind.of(memberType(member, context), attribute);
        Object idService = context.getServiceRegistry().requireService(ConfigurationService.class).getSettings()
                .get(ID_SERVICE);
        if (!(idService instanceof IdService ids)) {
            throw new MappingException("@VestaId on " + attribute + " needs an IdService, but the Hibernate setting '"
                    + ID_SERVICE + "' is " + (idService == null ? "not set" : "a " + idService.getClass().getName())
                    + ". The Vesta starter sets it on every EntityManagerFactory of an application context that has an"
                    + " IdService bean; with plain Hibernate, put your IdService into the settings under '"
                    + ID_SERVICE + "'.");
        }
        this.idService = ids;
    }

    @Override
    public Object generate(SharedSessionContractImplementor session, Object owner, Object currentValue,
            EventType eventType) {
        if (kind.isAssigned(currentValue)) {
            return currentValue;
        }
        return kind.wrap(idService.genId());
    }

    @Override
    public EnumSet<EventType> getEventTypes() {
        return EventTypeSets.INSERT_ONLY;
    }

    @Override
    public boolean allowAssignedIdentifiers() {
        return true;
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

    /** The identifier types a Vesta ID fits in, and what "not set yet" means for each. */
    private enum IdKind {
        BOXED, PRIMITIVE, STRING;

        static IdKind of(Class<?> type, String attribute) {
            if (type == Long.class) {
                return BOXED;
            }
            if (type == long.class) {
                return PRIMITIVE;
            }
            if (type == String.class) {
                return STRING;
            }
            throw new MappingException("@VestaId on " + attribute + " needs a Long, long or String identifier, but it is "
                    + (type == null ? "of an unknown type" : "a " + type.getName()));
        }

        boolean isAssigned(Object currentValue) {
            return currentValue != null && !(this == PRIMITIVE && ((Long) currentValue) == 0L);
        }

        Object wrap(long id) {
            return this == STRING ? Long.toString(id) : Long.valueOf(id);
        }
    }
}
