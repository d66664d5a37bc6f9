package io.vesta;

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

    /** A {@code String} holding the ID's decimal digits: {@code null} until an ID is given. */
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
        return this == STRING ? Long.toString(id) : Long.valueOf(id);
    }
}
