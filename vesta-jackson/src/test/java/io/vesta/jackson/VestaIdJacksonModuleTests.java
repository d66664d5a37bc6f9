package io.vesta.jackson;

import com.fasterxml.jackson.annotation.JsonFormat;
import io.vesta.IdFormat;
import io.vesta.VestaId;
import java.util.List;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.exc.InvalidFormatException;
import tools.jackson.databind.exc.MismatchedInputException;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** IDs as strings on a real Jackson 3 {@code JsonMapper}, no Spring. */
class VestaIdJacksonModuleTests {

    /** Above 2^53: a JavaScript number would round it to 1234567890123456800. */
    static final long ID = 1234567890123456789L;

    private final JsonMapper withModule = JsonMapper.builder().addModule(new VestaIdJacksonModule()).build();

    /** A response a JavaScript client would read: two Vesta IDs and a plain count. */
    public record Ticket(@VestaId Long id, @VestaId long parentId, Long count) {
    }

    /** A Vesta ID that a caller keeps as a number on purpose, and one that is a string already. */
    public record Legacy(@VestaId @JsonFormat(shape = JsonFormat.Shape.NUMBER) Long id, @VestaId String code) {
    }

    @Test
    void withoutTheModuleIdsStayJsonNumbers() {
        assertThat(JsonMapper.builder().build().writeValueAsString(new Ticket(ID, ID + 1, 7L)))
                .isEqualTo("{\"id\":" + ID + ",\"parentId\":" + (ID + 1) + ",\"count\":7}");
    }

    @Test
    void withTheModuleVestaIdPropertiesAreWrittenAsStringsAndOthersAreNot() {
        assertThat(withModule.writeValueAsString(new Ticket(ID, ID + 1, 7L)))
                .isEqualTo("{\"id\":\"" + ID + "\",\"parentId\":\"" + (ID + 1) + "\",\"count\":7}");
    }

    @Test
    void withTheModuleVestaIdPropertiesAreReadFromStringsAndFromNumbers() {
        Ticket expected = new Ticket(ID, ID + 1, 3L);
        assertThat(withModule.readValue("{\"id\":\"" + ID + "\",\"parentId\":\"" + (ID + 1) + "\",\"count\":3}",
                Ticket.class)).isEqualTo(expected);
        assertThat(withModule.readValue("{\"id\":" + ID + ",\"parentId\":" + (ID + 1) + ",\"count\":3}", Ticket.class))
                .isEqualTo(expected);
    }

    @Test
    void anExplicitJsonFormatWinsAndAStringIdStaysAString() {
        assertThat(withModule.writeValueAsString(new Legacy(ID, "42")))
                .isEqualTo("{\"id\":" + ID + ",\"code\":\"42\"}");
    }

    @Test
    void aNullIdIsWrittenAsNull() {
        assertThat(withModule.writeValueAsString(new Ticket(null, 0, null)))
                .isEqualTo("{\"id\":null,\"parentId\":\"0\",\"count\":null}");
    }

    /** 2^63 + 5: a version-1 ID, a negative {@code long}. */
    static final long VERSION_1 = Long.MIN_VALUE + 5;

    private final JsonMapper base32 = JsonMapper.builder().addModule(new VestaIdJacksonModule(IdFormat.BASE32)).build();
    private final JsonMapper base62 = JsonMapper.builder().addModule(new VestaIdJacksonModule(IdFormat.BASE62)).build();

    /** Both kinds of ID property, a list that is not one, and a plain count. */
    public record Order(@VestaId Long id, @VestaId long parentId, List<Long> lines, Long count) {
    }

    @Test
    void theDefaultModuleWritesDecimalDigits() {
        assertThat(new VestaIdJacksonModule().format()).isEqualTo(IdFormat.DECIMAL);
    }

    @Test
    void base32IdsAreWrittenAsThirteenCrockfordCharactersAndReadBack() {
        // 1234567890123456789 in Crockford base 32 (computed with Python's integers) and 2^63 + 5.
        Order order = new Order(ID, VERSION_1, List.of(ID), 7L);
        String json = base32.writeValueAsString(order);
        assertThat(json).isEqualTo("{\"id\":\"128GGYHYYK08N\",\"parentId\":\"8000000000005\","
                + "\"lines\":[" + ID + "],\"count\":7}");
        assertThat(base32.readValue(json, Order.class)).isEqualTo(order);
    }

    @Test
    void base62IdsAreWrittenAsElevenCharactersAndReadBack() {
        Order order = new Order(0L, -1L, List.of(), null);
        String json = base62.writeValueAsString(order);
        // 0 and 2^64-1 (LygHa16AHYF, computed with Python's integers).
        assertThat(json).isEqualTo("{\"id\":\"00000000000\",\"parentId\":\"LygHa16AHYF\",\"lines\":[],\"count\":null}");
        assertThat(base62.readValue(json, Order.class)).isEqualTo(order);
    }

    @Test
    void aFormattedIdIsAlsoReadFromAJsonNumberAndFromLowerCaseCrockford() {
        String lower = "128ggyhyyk08n";
        assertThat(base32.readValue("{\"id\":" + ID + ",\"parentId\":\"" + lower + "\"}", Order.class))
                .isEqualTo(new Order(ID, ID, null, null));
    }

    @Test
    void aStringThatIsNotAnIdIsRefusedWithTheFormatsMessage() {
        assertThatThrownBy(() -> base32.readValue("{\"id\":\"00000U0000000\"}", Order.class))
                .isInstanceOf(InvalidFormatException.class)
                .hasMessageContaining("\"00000U0000000\" is not a BASE32 ID: the character 'U' at index 5 is not a"
                        + " Crockford base-32 digit")
                .hasMessageContaining("Order[\"id\"]");
        assertThatThrownBy(() -> base62.readValue("{\"parentId\":\"" + ID + "\"}", Order.class))
                .isInstanceOf(InvalidFormatException.class)
                .hasMessageContaining("\"" + ID + "\" is not a BASE62 ID: it has 19 characters, a BASE62 ID has 11");
        assertThatThrownBy(() -> base62.readValue("{\"id\":true}", Order.class))
                .isInstanceOf(MismatchedInputException.class);
    }

    @Test
    void aNullIdStaysNullAndAPrimitiveOneIsRefusedAsJackson3DoesUnlessNullsForPrimitivesAreAllowed() {
        assertThat(base32.writeValueAsString(new Order(null, 0, null, null)))
                .isEqualTo("{\"id\":null,\"parentId\":\"0000000000000\",\"lines\":null,\"count\":null}");
        assertThat(base32.readValue("{\"id\":null,\"parentId\":\"0000000000001\"}", Order.class))
                .isEqualTo(new Order(null, 1, null, null));
        assertThatThrownBy(() -> base32.readValue("{\"parentId\":null}", Order.class))
                .isInstanceOf(MismatchedInputException.class).hasMessageContaining("Cannot coerce `null` to `long`");
        JsonMapper lenient = base32.rebuild().disable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES).build();
        assertThat(lenient.readValue("{\"parentId\":null}", Order.class)).isEqualTo(new Order(null, 0, null, null));
    }

    @Test
    void anExplicitJsonFormatStillWinsOverAFormat() {
        assertThat(base32.writeValueAsString(new Legacy(ID, "42")))
                .isEqualTo("{\"id\":" + ID + ",\"code\":\"42\"}");
        assertThat(base32.readValue("{\"id\":" + ID + ",\"code\":\"42\"}", Legacy.class))
                .isEqualTo(new Legacy(ID, "42"));
    }

    /** Each ID in a format of its own, whatever the module's; the third follows the module. */
    public record Mixed(@VestaId(format = IdFormat.BASE32) Long id, @VestaId(format = IdFormat.DECIMAL) long parentId,
            @VestaId Long groupId) {
    }

    public record TwoFormats(@VestaId(format = { IdFormat.BASE32, IdFormat.BASE62 }) Long id) {
    }

    @Test
    void aPropertysOwnFormatReplacesTheModulesInWritingAndReading() {
        Mixed mixed = new Mixed(ID, ID + 1, ID + 2);
        String base62Module = "{\"id\":\"" + IdFormat.BASE32.format(ID) + "\",\"parentId\":\"" + (ID + 1)
                + "\",\"groupId\":\"" + IdFormat.BASE62.format(ID + 2) + "\"}";
        JsonMapper base62 = JsonMapper.builder().addModule(new VestaIdJacksonModule(IdFormat.BASE62)).build();
        assertThat(base62.writeValueAsString(mixed)).isEqualTo(base62Module);
        assertThat(base62.readValue(base62Module, Mixed.class)).isEqualTo(mixed);

        String decimalModule = "{\"id\":\"" + IdFormat.BASE32.format(ID) + "\",\"parentId\":\"" + (ID + 1)
                + "\",\"groupId\":\"" + (ID + 2) + "\"}";
        assertThat(withModule.writeValueAsString(mixed)).isEqualTo(decimalModule);
        assertThat(withModule.readValue(decimalModule, Mixed.class)).isEqualTo(mixed);
        assertThatThrownBy(() -> withModule.readValue("{\"id\":\"" + ID + "\"}", Mixed.class))
                .isInstanceOf(InvalidFormatException.class).hasMessageContaining("is not a BASE32 ID");
    }

    @Test
    void twoFormatsOnOnePropertyAreRefusedNamingTheClassAndTheProperty() {
        assertThatThrownBy(() -> withModule.writeValueAsString(new TwoFormats(ID)))
                .hasStackTraceContaining("@VestaId(format) on " + TwoFormats.class.getName()
                        + ".id takes at most one format, but it has 2: [BASE32, BASE62]");
    }
}
