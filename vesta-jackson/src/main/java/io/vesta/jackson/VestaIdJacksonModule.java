package io.vesta.jackson;

import com.fasterxml.jackson.annotation.JsonFormat;
import io.vesta.IdFormat;
import io.vesta.IdPropertyType;
import io.vesta.PublicIds;
import io.vesta.VestaId;
import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.LongFunction;
import java.util.function.ToLongFunction;
import tools.jackson.core.JsonGenerator;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.Version;
import tools.jackson.databind.DeserializationContext;
import tools.jackson.databind.JacksonModule;
import tools.jackson.databind.JavaType;
import tools.jackson.databind.SerializationContext;
import tools.jackson.databind.cfg.MapperConfig;
import tools.jackson.databind.deser.std.StdScalarDeserializer;
import tools.jackson.databind.introspect.Annotated;
import tools.jackson.databind.introspect.NopAnnotationIntrospector;
import tools.jackson.databind.jsonFormatVisitors.JsonFormatVisitorWrapper;
import tools.jackson.databind.ser.std.StdSerializer;

/**
 * Writes {@link VestaId @VestaId} {@code Long}/{@code long} properties as JSON strings in an {@link IdFormat},
 * because JavaScript numbers lose integers above 2^53 and Vesta IDs are about 2^60, and reads them from such a
 * string or from the plain JSON number. {@link IdFormat#DECIMAL} (the default) writes the decimal digits, as if the
 * property were annotated {@code @JsonFormat(shape = STRING)}; {@link IdFormat#BASE32} and {@link IdFormat#BASE62}
 * write the short fixed-length strings that sort as the IDs do. A string that is not an ID of the format is refused
 * with the format's own message (the input, the format and what is wrong) in an {@code InvalidFormatException}.
 * An explicit {@code @JsonFormat} shape, {@code @JsonSerialize} or {@code @JsonDeserialize} on the property wins:
 * this introspector is consulted after Jackson's own. {@code @VestaId String} properties are left as they are.
 * <p>
 * A property's own {@code @VestaId(format = IdFormat.BASE62)} replaces the module's format for that property, in
 * writing and in reading; two formats on one property are refused naming the class and the property.
 * <p>
 * Plain Jackson registers it with {@code JsonMapper.builder().addModule(new VestaIdJacksonModule()).build()}, or
 * {@code new VestaIdJacksonModule(IdFormat.BASE32)}; Spring Boot does with {@code vesta.jackson.ids-as-strings=true},
 * and an application's own {@code VestaIdJacksonModule} bean replaces the starter's.
 * <p>
 * {@code @VestaId(publicId = true)} properties are written in their opaque public form and read only from it, with the
 * {@link PublicIds} given to {@link #VestaIdJacksonModule(IdFormat, PublicIds)} or {@link #publicIdsOnly}; a mapper
 * whose module has none refuses them, naming the property, when it first writes or reads their class.
 */
public final class VestaIdJacksonModule extends JacksonModule {

    private final IdFormat format;
    private final PublicIds publicIds;
    private final boolean idsAsStrings;

    /** Creates the module that writes the IDs' decimal digits ({@link IdFormat#DECIMAL}). */
    public VestaIdJacksonModule() {
        this(IdFormat.DECIMAL);
    }

    /** Creates the module that writes and reads IDs in {@code format}. */
    public VestaIdJacksonModule(IdFormat format) {
        this(format, null, true);
    }

    /**
     * Creates the module that writes and reads IDs in {@code format}, and {@code @VestaId(publicId = true)} properties
     * in the public form of {@code publicIds}.
     */
    public VestaIdJacksonModule(IdFormat format, PublicIds publicIds) {
        this(format, Objects.requireNonNull(publicIds, "publicIds"), true);
    }

    private VestaIdJacksonModule(IdFormat format, PublicIds publicIds, boolean idsAsStrings) {
        this.format = Objects.requireNonNull(format, "format");
        this.publicIds = publicIds;
        this.idsAsStrings = idsAsStrings;
    }

    /**
     * The module that converts only {@code @VestaId(publicId = true)} properties, in the public form of
     * {@code publicIds}, and properties with a format of their own ({@code @VestaId(format = ...)}), and leaves other
     * {@code @VestaId} properties as Jackson writes them (JSON numbers).
     */
    public static VestaIdJacksonModule publicIdsOnly(PublicIds publicIds) {
        return new VestaIdJacksonModule(IdFormat.DECIMAL, Objects.requireNonNull(publicIds, "publicIds"), false);
    }

    /**
     * The module that converts only what a property asks for itself: a format of its own
     * ({@code @VestaId(format = ...)}) is written and read in that format, and a {@code @VestaId(publicId = true)}
     * property, having no {@link PublicIds} here, is refused naming it rather than written as the raw ID. Other
     * {@code @VestaId} properties stay JSON numbers. Spring Boot registers it when neither IDs as strings nor public
     * IDs are configured, so that no annotation is silently ignored.
     */
    public static VestaIdJacksonModule propertiesOwnOnly() {
        return new VestaIdJacksonModule(IdFormat.DECIMAL, null, false);
    }

    /** The format IDs are written in. */
    public IdFormat format() {
        return format;
    }

    @Override
    public String getModuleName() {
        return "vesta-ids-as-strings";
    }

    @Override
    public Version version() {
        return Version.unknownVersion();
    }

    @Override
    public void setupModule(SetupContext context) {
        context.appendAnnotationIntrospector(new PublicIdIntrospector(publicIds));
        context.appendAnnotationIntrospector(new IdsAsStrings(format, idsAsStrings));
    }

    private static final class IdsAsStrings extends NopAnnotationIntrospector {

        private static final JsonFormat.Value STRING = JsonFormat.Value.forShape(JsonFormat.Shape.STRING);

        private final IdFormat format;
        /** Whether every {@code @VestaId} property is a string, or only those with a format of their own. */
        private final boolean allIds;
        private final Map<IdFormat, IdSerializer> serializers = new EnumMap<>(IdFormat.class);
        private final Map<IdFormat, IdDeserializer> boxed = new EnumMap<>(IdFormat.class);
        private final Map<IdFormat, IdDeserializer> primitive = new EnumMap<>(IdFormat.class);

        IdsAsStrings(IdFormat format, boolean allIds) {
            this.format = format;
            this.allIds = allIds;
            for (IdFormat each : IdFormat.values()) {
                serializers.put(each, new IdSerializer(each));
                boxed.put(each, new IdDeserializer(each, false));
                primitive.put(each, new IdDeserializer(each, true));
            }
        }

        private static boolean isIdProperty(Annotated annotated) {
            Class<?> type = annotated.getRawType();
            return (type == Long.class || type == long.class) && annotated.hasAnnotation(VestaId.class)
                    && !PublicIdIntrospector.isPublicId(annotated);
        }

        /**
         * The property's own {@code @VestaId(format = ...)}, or else the module's when it writes every ID as a string;
         * null when the property stays as Jackson writes it.
         */
        private IdFormat formatOf(Annotated annotated) {
            String property = PublicIdIntrospector.propertyName(annotated);
            IdFormat own = IdPropertyType.formatOf(annotated.getAnnotation(VestaId.class), property);
            return own != null ? own : allIds ? format : null;
        }

        /** Whether the property says itself how it is written, with a {@code @JsonFormat} shape. */
        private static boolean hasOwnShape(Annotated annotated) {
            JsonFormat own = annotated.getAnnotation(JsonFormat.class);
            return own != null && own.shape() != JsonFormat.Shape.ANY;
        }

        @Override
        public JsonFormat.Value findFormat(MapperConfig<?> config, Annotated annotated) {
            return isIdProperty(annotated) && formatOf(annotated) == IdFormat.DECIMAL ? STRING : JsonFormat.Value.empty();
        }

        @Override
        public Object findSerializer(MapperConfig<?> config, Annotated annotated) {
            if (!isIdProperty(annotated) || hasOwnShape(annotated)) {
                return null;
            }
            IdFormat own = formatOf(annotated);
            return own == null || own == IdFormat.DECIMAL ? null : serializers.get(own);
        }

        @Override
        public Object findDeserializer(MapperConfig<?> config, Annotated annotated) {
            if (!isIdProperty(annotated) || hasOwnShape(annotated)) {
                return null;
            }
            IdFormat own = formatOf(annotated);
            if (own == null || own == IdFormat.DECIMAL) {
                return null;
            }
            return (annotated.getRawType() == long.class ? primitive : boxed).get(own);
        }

        @Override
        public Version version() {
            return Version.unknownVersion();
        }
    }

    /** An ID as a JSON string in its format (or in its public form, {@link PublicIdIntrospector}). */
    static final class IdSerializer extends StdSerializer<Long> {

        private final LongFunction<String> format;

        IdSerializer(IdFormat format) {
            this(format::format);
        }

        IdSerializer(LongFunction<String> format) {
            super(Long.class);
            this.format = format;
        }

        @Override
        public void serialize(Long id, JsonGenerator generator, SerializationContext context) {
            generator.writeString(format.apply(id));
        }

        @Override
        public void acceptJsonFormatVisitor(JsonFormatVisitorWrapper visitor, JavaType typeHint) {
            visitStringFormat(visitor, typeHint);
        }
    }

    /**
     * An ID from a JSON string in its format, or from a JSON integer; a public ID ({@link PublicIdIntrospector}) from its
     * public form only, a JSON integer refused.
     */
    static final class IdDeserializer extends StdScalarDeserializer<Long> {

        private final ToLongFunction<String> format;
        private final boolean primitive;
        private final boolean numbers;

        IdDeserializer(IdFormat format, boolean primitive) {
            this(format::parse, primitive, true);
        }

        IdDeserializer(ToLongFunction<String> format, boolean primitive, boolean numbers) {
            super(primitive ? Long.TYPE : Long.class);
            this.format = format;
            this.primitive = primitive;
            this.numbers = numbers;
        }

        @Override
        public Long deserialize(JsonParser parser, DeserializationContext context) {
            JsonToken token = parser.currentToken();
            if (token == JsonToken.VALUE_NUMBER_INT && numbers) {
                return parser.getLongValue();
            }
            if (token != JsonToken.VALUE_STRING) {
                return numbers ? (Long) context.handleUnexpectedToken(handledType(), parser)
                        : (Long) context.handleUnexpectedToken(context.constructType(handledType()), token, parser,
                                "a public ID is read only from its public form, a JSON string, not from %s", token);
            }
            String text = parser.getString();
            try {
                return format.applyAsLong(text);
            } catch (IllegalArgumentException e) {
                return (Long) context.handleWeirdStringValue(handledType(), text, e.getMessage());
            }
        }

        @Override
        public Object getNullValue(DeserializationContext context) {
            if (primitive) {
                _verifyNullForPrimitive(context);
                return 0L;
            }
            return null;
        }
    }
}
