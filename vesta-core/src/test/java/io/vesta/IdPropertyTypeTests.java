package io.vesta;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

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

    @Test
    void aStringIsWrittenInTheGivenFormatAndALongStaysTheNumber() {
        long id = 1234567890123456789L;
        for (IdFormat format : IdFormat.values()) {
            assertThat(IdPropertyType.STRING.valueOf(id, format)).isEqualTo(format.format(id));
            assertThat(format.parse((String) IdPropertyType.STRING.valueOf(id, format))).isEqualTo(id);
            assertThat(IdPropertyType.LONG.valueOf(id, format)).isEqualTo(id);
            assertThat(IdPropertyType.PRIMITIVE_LONG.valueOf(id, format)).isEqualTo(id);
        }
        assertThat(IdPropertyType.STRING.valueOf(-1L, IdFormat.BASE32)).isEqualTo("FZZZZZZZZZZZZ");
    }

    @VestaId
    private String unset;

    @VestaId(format = IdFormat.BASE62)
    private String base62;

    @VestaId(format = { IdFormat.BASE32, IdFormat.BASE62 })
    private String two;

    @VestaId(format = IdFormat.BASE32, segment = "orders")
    private String withSegment;

    private static VestaId marker(String field) throws NoSuchFieldException {
        return IdPropertyTypeTests.class.getDeclaredField(field).getAnnotation(VestaId.class);
    }

    @Test
    void anUnsetFormatIsDecimalAndAnyOtherIsTakenOnAString() throws Exception {
        assertThat(IdPropertyType.formatOf(marker("unset"), "Order.id")).isNull();
        assertThat(IdPropertyType.formatOf(null, "Order.id")).isNull();
        for (IdPropertyType type : IdPropertyType.values()) {
            assertThat(type.format(marker("unset"), "Order.id")).isEqualTo(IdFormat.DECIMAL);
        }
        assertThat(IdPropertyType.STRING.format(marker("base62"), "Order.id")).isEqualTo(IdFormat.BASE62);
    }

    @Test
    void aFormatOnALongTwoFormatsOrAFormatWithASegmentAreRefusedNamingThePropertyAndTheReason() throws Exception {
        for (IdPropertyType type : new IdPropertyType[] { IdPropertyType.LONG, IdPropertyType.PRIMITIVE_LONG }) {
            assertThatIllegalArgumentException().isThrownBy(() -> type.format(marker("base62"), "com.example.Order.id"))
                    .withMessage("@VestaId(format = BASE62) on com.example.Order.id needs a String property, but it is a "
                            + type.javaType().getName() + ", which holds the ID itself; remove the format or make the"
                            + " property a String");
        }
        assertThatIllegalArgumentException().isThrownBy(() -> IdPropertyType.STRING.format(marker("two"), "Order.id"))
                .withMessage("@VestaId(format) on Order.id takes at most one format, but it has 2: [BASE32, BASE62]");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> IdPropertyType.STRING.format(marker("withSegment"), "Order.id"))
                .withMessageStartingWith("@VestaId(format = BASE32) on Order.id cannot be combined with segment = \"orders\"");
    }
}
