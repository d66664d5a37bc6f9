package io.vesta.jackson;

import com.fasterxml.jackson.annotation.JsonFormat;
import io.vesta.VestaId;
import tools.jackson.core.Version;
import tools.jackson.databind.JacksonModule;
import tools.jackson.databind.cfg.MapperConfig;
import tools.jackson.databind.introspect.Annotated;
import tools.jackson.databind.introspect.NopAnnotationIntrospector;

/**
 * Writes {@link VestaId @VestaId} {@code Long}/{@code long} properties as JSON strings, as if they were annotated
 * {@code @JsonFormat(shape = STRING)}, because JavaScript numbers lose integers above 2^53 and Vesta IDs are
 * about 2^60. Reading accepts the string and the plain number. An explicit {@code @JsonFormat} on the property
 * wins: this introspector is consulted after Jackson's own.
 * <p>
 * Plain Jackson registers it with {@code JsonMapper.builder().addModule(new VestaIdJacksonModule()).build()}; Spring
 * Boot does with {@code vesta.jackson.ids-as-strings=true}.
 */
public final class VestaIdJacksonModule extends JacksonModule {

    /** Creates the module; it has no settings. */
    public VestaIdJacksonModule() {
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
        context.appendAnnotationIntrospector(new IdsAsStrings());
    }

    private static final class IdsAsStrings extends NopAnnotationIntrospector {

        private static final JsonFormat.Value STRING = JsonFormat.Value.forShape(JsonFormat.Shape.STRING);

        @Override
        public JsonFormat.Value findFormat(MapperConfig<?> config, Annotated annotated) {
            Class<?> type = annotated.getRawType();
            if ((type == Long.class || type == long.class) && annotated.hasAnnotation(VestaId.class)) {
                return STRING;
            }
            return JsonFormat.Value.empty();
        }

        @Override
        public Version version() {
            return Version.unknownVersion();
        }
    }
}
