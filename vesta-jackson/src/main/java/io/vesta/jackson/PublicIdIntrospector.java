package io.vesta.jackson;

import io.vesta.PublicIds;
import io.vesta.VestaId;
import tools.jackson.core.Version;
import tools.jackson.databind.cfg.MapperConfig;
import tools.jackson.databind.introspect.Annotated;
import tools.jackson.databind.introspect.AnnotatedMember;
import tools.jackson.databind.introspect.AnnotatedParameter;
import tools.jackson.databind.introspect.NopAnnotationIntrospector;

/**
 * {@code @VestaId(publicId = true)} {@code Long}/{@code long} properties: written as {@link PublicIds#toPublic} and
 * read only from a public ID string, a JSON number or any other string (a decimal ID) refused, so that the raw ID
 * crosses the boundary in neither direction. Without {@link PublicIds} such a property is refused when Jackson
 * first looks for its serializer or deserializer (the first write or read of its class), naming it, rather than
 * written as the raw ID.
 */
final class PublicIdIntrospector extends NopAnnotationIntrospector {

    private final PublicIds publicIds;
    private final VestaIdJacksonModule.IdSerializer serializer;
    private final VestaIdJacksonModule.IdDeserializer boxed;
    private final VestaIdJacksonModule.IdDeserializer primitive;

    /** @param publicIds the conversion, or null when none is configured */
    PublicIdIntrospector(PublicIds publicIds) {
        this.publicIds = publicIds;
        if (publicIds == null) {
            this.serializer = null;
            this.boxed = null;
            this.primitive = null;
        } else {
            this.serializer = new VestaIdJacksonModule.IdSerializer(publicIds::toPublic);
            this.boxed = new VestaIdJacksonModule.IdDeserializer(publicIds::fromPublic, false, false);
            this.primitive = new VestaIdJacksonModule.IdDeserializer(publicIds::fromPublic, true, false);
        }
    }

    /** Whether {@code annotated} is marked {@code @VestaId(publicId = true)}, on a property of any type. */
    static boolean isPublicId(Annotated annotated) {
        VestaId vestaId = annotated.getAnnotation(VestaId.class);
        return vestaId != null && vestaId.publicId();
    }

    @Override
    public Object findSerializer(MapperConfig<?> config, Annotated annotated) {
        if (!isPublicId(annotated)) {
            return null;
        }
        require(annotated);
        return serializer;
    }

    @Override
    public Object findDeserializer(MapperConfig<?> config, Annotated annotated) {
        if (!isPublicId(annotated)) {
            return null;
        }
        require(annotated);
        return annotated.getRawType() == long.class ? primitive : boxed;
    }

    /** Refuses a public-ID property that this module cannot convert, or that is not a {@code Long}/{@code long}. */
    private void require(Annotated annotated) {
        Class<?> type = annotated.getRawType();
        if (type != Long.class && type != long.class) {
            throw new IllegalStateException("@VestaId(publicId = true) is on " + describe(annotated) + " of type "
                    + type.getName() + ": a public ID is the public form of a Long or long property");
        }
        if (annotated.getAnnotation(VestaId.class).format().length > 0) {
            throw new IllegalStateException(describe(annotated) + " is @VestaId(publicId = true) with a format: a"
                    + " public ID has one form of its own, so drop the format");
        }
        if (publicIds == null) {
            throw new IllegalStateException(describe(annotated) + " is @VestaId(publicId = true) but this mapper's "
                    + "VestaIdJacksonModule has no PublicIds: give it one (new VestaIdJacksonModule(format, publicIds),"
                    + " in Spring Boot vesta.public-id.enabled=true with its keys), so that the raw ID is never shown");
        }
    }

    private static String describe(Annotated annotated) {
        return "the property " + propertyName(annotated);
    }

    /**
     * {@code Class.property} of a field, a getter or a constructor parameter. A parameter has no name of its own in
     * Jackson's model when the class was compiled without {@code -parameters}; a record's canonical constructor
     * takes its components in order, so a record's parameter is named by its component.
     */
    static String propertyName(Annotated annotated) {
        if (!(annotated instanceof AnnotatedMember member)) {
            return annotated.getName();
        }
        Class<?> owner = member.getDeclaringClass();
        String name = member.getName();
        if (name.isEmpty() && member instanceof AnnotatedParameter parameter && owner.isRecord()
                && parameter.getOwner().getParameterCount() == owner.getRecordComponents().length) {
            name = owner.getRecordComponents()[parameter.getIndex()].getName();
        }
        return owner.getName() + (name.isEmpty() ? "" : "." + name);
    }

    @Override
    public Version version() {
        return Version.unknownVersion();
    }
}
