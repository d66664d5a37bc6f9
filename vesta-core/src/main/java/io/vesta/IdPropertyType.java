package io.vesta;

import java.util.Arrays;
import java.util.Optional;

/**
 * The Java types a property that holds a Vesta ID may have, {@code Long}, {@code long} and {@code String}, and how a
 * generated {@code long} is written into each. The adapters that fill {@link VestaId @VestaId} properties (Hibernate,
 * MyBatis) share it, so that they agree on which properties can hold an ID and on when one is still to be given.
 */
public enum IdPropertyType {

    /** A {@code java.lang.Long}: {@code null} until an ID is given. */
    LONG(Long.class),

    /** A primitive {@code long}: {@code 0} until an ID is given, since it cannot be {@code null}. */
    PRIMITIVE_LONG(long.class),

    /**
     * A {@code String} holding the ID's decimal digits, or the ID in the {@link IdFormat} of
     * {@code @VestaId(format = ...)}: {@code null} until an ID is given.
     */
    STRING(String.class);

    private final Class<?> javaType;

    IdPropertyType(Class<?> javaType) {
        this.javaType = javaType;
    }

    /** The property type that {@code type} is, or empty if a Vesta ID does not fit in it (an {@code Integer}, say). */
    public static Optional<IdPropertyType> of(Class<?> type) {
        for (IdPropertyType candidate : values()) {
            if (candidate.javaType == type) {
                return Optional.of(candidate);
            }
        }
        return Optional.empty();
    }

    /** The Java type of such a property. */
    public Class<?> javaType() {
        return javaType;
    }

    /**
     * Whether {@code value}, read from such a property, asks for a new ID: {@code null}, or {@code 0} for a primitive
     * {@code long}. Any other value was set by the caller (a repaired or imported row) and is kept.
     */
    public boolean isUnset(Object value) {
        return value == null || (this == PRIMITIVE_LONG && ((Long) value) == 0L);
    }

    /** {@code id} as a value of such a property: a {@code Long}, or its decimal digits for a {@code String}. */
    public Object valueOf(long id) {
        return valueOf(id, IdFormat.DECIMAL);
    }

    /** {@code id} as a value of such a property: a {@code Long}, or the ID in {@code format} for a {@code String}. */
    public Object valueOf(long id, IdFormat format) {
        return this == STRING ? format.format(id) : Long.valueOf(id);
    }

    /**
     * The format a property of this type that an adapter fills takes from {@code annotation}: its
     * {@link VestaId#format()}, or {@link IdFormat#DECIMAL} when it is unset (or there is no annotation).
     * @param property the entity and property, as {@code com.example.Order.id}, for the message
     * @throws IllegalArgumentException naming {@code property} and the reason, if the annotation has more than one
     *         format, or one on a {@code Long}/{@code long} (which holds the number itself), or one together with a
     *         {@link VestaId#segment()}
     */
    public IdFormat format(VestaId annotation, String property) {
        IdFormat format = formatOf(annotation, property);
        if (format == null) {
            return IdFormat.DECIMAL;
        }
        if (this != STRING) {
            throw new IllegalArgumentException("@VestaId(format = " + format + ") on " + property + " needs a String"
                    + " property, but it is a " + javaType.getName() + ", which holds the ID itself; remove the format"
                    + " or make the property a String");
        }
        if (!annotation.segment().isEmpty()) {
            throw new IllegalArgumentException("@VestaId(format = " + format + ") on " + property + " cannot be"
                    + " combined with segment = \"" + BizTagFormat.escape(annotation.segment()) + "\": segment"
                    + " numbers are dense counters, not Vesta IDs; remove one of them");
        }
        return format;
    }

    /**
     * The one format of {@code annotation}, or {@code null} when it has none (or there is no annotation).
     * @param property the entity and property, as {@code com.example.Order.id}, for the message
     * @throws IllegalArgumentException naming {@code property} if the annotation has more than one format
     */
    public static IdFormat formatOf(VestaId annotation, String property) {
        if (annotation == null || annotation.format().length == 0) {
            return null;
        }
        if (annotation.format().length > 1) {
            throw new IllegalArgumentException("@VestaId(format) on " + property + " takes at most one format, but it"
                    + " has " + annotation.format().length + ": " + Arrays.toString(annotation.format()));
        }
        return annotation.format()[0];
    }
}
