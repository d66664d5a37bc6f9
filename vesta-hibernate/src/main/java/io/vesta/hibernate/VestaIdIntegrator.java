package io.vesta.hibernate;

import io.vesta.VestaId;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import org.hibernate.MappingException;
import org.hibernate.annotations.IdGeneratorType;
import org.hibernate.annotations.ValueGenerationType;
import org.hibernate.boot.Metadata;
import org.hibernate.boot.spi.BootstrapContext;
import org.hibernate.engine.spi.SessionFactoryImplementor;
import org.hibernate.integrator.spi.Integrator;
import org.hibernate.mapping.Component;
import org.hibernate.mapping.PersistentClass;
import org.hibernate.mapping.Property;
import org.hibernate.mapping.RootClass;
import org.hibernate.mapping.SimpleValue;

import java.lang.annotation.Annotation;
import java.lang.reflect.AnnotatedElement;
import java.lang.reflect.Field;
import java.lang.reflect.Member;
import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.Set;

/**
 * Gives every identifier that {@link VestaId @VestaId} marks the {@link VestaIdGenerator}, in each
 * {@code SessionFactory} Hibernate starts: Hibernate finds it through {@code META-INF/services}, so an application
 * only needs {@code vesta-hibernate} on its class path.
 * <p>
 * {@code @VestaId} lives in {@code vesta-core} and is not meta-annotated with Hibernate's {@code @IdGeneratorType}:
 * that would make every project using it with MyBatis or Jackson alone compile against a Hibernate class it does
 * not have. Hibernate calls integrators after it has bound the mapping and before it builds the identifier
 * generators, which is when this one replaces the generator Hibernate would otherwise have chosen (assigned, or the
 * sequence of a plain {@code @GeneratedValue}), as {@code @IdGeneratorType} would have at binding time:
 * <ul>
 * <li>{@code @Id @VestaId} (with or without {@code @GeneratedValue}) on the identifier's field or getter;</li>
 * <li>{@code @VestaId} on the package that declares an identifier annotated {@code @GeneratedValue} with strategy
 * {@code AUTO} and no generator name, when neither the identifier, its class nor the package declares a generator
 * of its own.</li>
 * </ul>
 */
public final class VestaIdIntegrator implements Integrator {

    /** Annotations that give an identifier a generator of its own, which a package-level {@code @VestaId} leaves be. */
    private static final Set<String> OWN_GENERATORS = Set.of("jakarta.persistence.SequenceGenerator",
            "jakarta.persistence.SequenceGenerators", "jakarta.persistence.TableGenerator",
            "jakarta.persistence.TableGenerators", "org.hibernate.annotations.GenericGenerator",
            "org.hibernate.annotations.GenericGenerators");

    @Override
    public void integrate(Metadata metadata, BootstrapContext bootstrapContext,
            SessionFactoryImplementor sessionFactory) {
        for (PersistentClass entity : metadata.getEntityBindings()) {
            if (entity instanceof RootClass root && root.getIdentifier() instanceof SimpleValue identifier
                    && !(identifier instanceof Component) && root.getIdentifierProperty() != null
                    && root.getMappedClass() != null) {
                useVestaGeneratorWhereMarked(root, identifier);
            }
        }
    }

    private static void useVestaGeneratorWhereMarked(RootClass root, SimpleValue identifier) {
        Property property = root.getIdentifierProperty();
        Member member = member(root.getMappedClass(), property);
        if (member == null) {
            return;
        }
        AnnotatedElement annotated = (AnnotatedElement) member;
        VestaId marker = annotated.getAnnotation(VestaId.class);
        if (marker != null) {
            Annotation other = firstGeneratorAnnotation(annotated.getAnnotations());
            if (other != null) {
                throw new MappingException("Identifier attribute '" + root.getEntityName() + "." + property.getName()
                        + "' has too many generator annotations: @" + VestaId.class.getName() + " and "
                        + other.annotationType().getName());
            }
        }
        else {
            marker = packageMarker(member);
        }
        if (marker != null) {
            VestaId annotation = marker;
            identifier.setCustomIdGeneratorCreator(context -> {
                VestaIdGenerator generator = new VestaIdGenerator();
                generator.initialize(annotation, member, context);
                return generator;
            });
        }
    }

    /** The package's {@code @VestaId} if it applies to this plain {@code @GeneratedValue} identifier. */
    private static VestaId packageMarker(Member member) {
        GeneratedValue generatedValue = ((AnnotatedElement) member).getAnnotation(GeneratedValue.class);
        Package pkg = member.getDeclaringClass().getPackage();
        if (generatedValue == null || generatedValue.strategy() != GenerationType.AUTO
                || !generatedValue.generator().isEmpty() || pkg == null) {
            return null;
        }
        VestaId marker = pkg.getAnnotation(VestaId.class);
        if (marker == null || declaresGenerator((AnnotatedElement) member) || declaresGenerator(member.getDeclaringClass())
                || declaresGenerator(pkg)) {
            return null;
        }
        return marker;
    }

    private static boolean declaresGenerator(AnnotatedElement element) {
        return firstGeneratorAnnotation(element.getAnnotations()) != null || Arrays.stream(element.getAnnotations())
                .anyMatch(annotation -> OWN_GENERATORS.contains(annotation.annotationType().getName()));
    }

    /** The first annotation that is itself a Hibernate generator annotation ({@code @UuidGenerator}, say). */
    private static Annotation firstGeneratorAnnotation(Annotation[] annotations) {
        for (Annotation annotation : annotations) {
            Class<? extends Annotation> type = annotation.annotationType();
            if (type.isAnnotationPresent(IdGeneratorType.class) || type.isAnnotationPresent(ValueGenerationType.class)) {
                return annotation;
            }
        }
        return null;
    }

    /**
     * The field or getter Hibernate reads the identifier through: its annotations are the ones Hibernate bound,
     * those on the other are ignored, as Hibernate ignores them.
     */
    private static Member member(Class<?> entity, Property property) {
        String name = property.getName();
        String access = property.getPropertyAccessorName();
        if ("field".equals(access)) {
            return field(entity, name);
        }
        String capitalized = Character.toUpperCase(name.charAt(0)) + name.substring(1);
        Set<String> getters = "record".equals(access) ? Set.of(name) : Set.of("get" + capitalized, "is" + capitalized);
        for (Class<?> type = entity; type != null && type != Object.class; type = type.getSuperclass()) {
            for (Method method : type.getDeclaredMethods()) {
                if (method.getParameterCount() == 0 && !method.isBridge() && getters.contains(method.getName())) {
                    return method;
                }
            }
        }
        return field(entity, name);
    }

    private static Field field(Class<?> entity, String name) {
        for (Class<?> type = entity; type != null && type != Object.class; type = type.getSuperclass()) {
            try {
                return type.getDeclaredField(name);
            }
            catch (NoSuchFieldException notHere) {
                // declared further up, in a @MappedSuperclass
            }
        }
        return null;
    }
}
