package io.vesta;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class IdPropertyTypeTests {

    @Test
    void longPrimitiveLongAndStringCanHoldAnIdAndNothingElseCan() {
        assertThat(IdPropertyType.of(Long.class)).contains(IdPropertyType.LONG);
        assertThat(IdPropertyType.of(long.class)).contains(IdPropertyType.PRIMITIVE_LONG);
        assertThat(IdPropertyType.of(String.class)).contains(IdPropertyType.STRING);
        for (Class<?> other : new Class<?>[] { Integer.class, int.class, Object.class, Number.class, null }) {
            assertThat(IdPropertyType.of(other)).as(String.valueOf(other)).isEmpty();
        }
        for (IdPropertyType type : IdPropertyType.values()) {
            assertThat(IdPropertyType.of(type.javaType())).contains(type);
        }
    }

    @Test
    void nullAndAPrimitiveZeroAskForAnIdAndAnyOtherValueIsKept() {
        for (IdPropertyType type : IdPropertyType.values()) {
            assertThat(type.isUnset(null)).as(type.name()).isTrue();
        }
        assertThat(IdPropertyType.PRIMITIVE_LONG.isUnset(0L)).isTrue();
        assertThat(IdPropertyType.PRIMITIVE_LONG.isUnset(42L)).isFalse();
        assertThat(IdPropertyType.LONG.isUnset(0L)).as("a boxed 0 was set by the caller").isFalse();
        assertThat(IdPropertyType.LONG.isUnset(42L)).isFalse();
        assertThat(IdPropertyType.STRING.isUnset("0")).isFalse();
        assertThat(IdPropertyType.STRING.isUnset("")).isFalse();
    }

    @Test
    void anIdIsWrittenAsALongOrAsItsDecimalDigits() {
        long id = 1234567890123456789L;
        assertThat(IdPropertyType.LONG.valueOf(id)).isEqualTo(id);
        assertThat(IdPropertyType.PRIMITIVE_LONG.valueOf(id)).isEqualTo(id);
        assertThat(IdPropertyType.STRING.valueOf(id)).isEqualTo("1234567890123456789");
        assertThat(IdPropertyType.STRING.valueOf(-1L)).as("version 1 IDs are negative longs").isEqualTo("-1");
    }
}
