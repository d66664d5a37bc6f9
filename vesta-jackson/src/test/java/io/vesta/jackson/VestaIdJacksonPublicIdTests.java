package io.vesta.jackson;

import io.vesta.IdFormat;
import io.vesta.VestaId;
import io.vesta.publicid.Ff1PublicIds;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.exc.InvalidFormatException;
import tools.jackson.databind.exc.MismatchedInputException;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@code @VestaId(publicId = true)} on a real Jackson 3 {@code JsonMapper} with real FF1 public IDs. */
class VestaIdJacksonPublicIdTests {

    static final long ID = 2709772636019233692L;
    static final long VERSION_1 = Long.MIN_VALUE + 5;

    private final Ff1PublicIds publicIds = Ff1PublicIds.builder()
            .key(3, HexFormat.of().parseHex("00112233445566778899aabbccddeeff")).build();

    /** An order as a public API shows it: its own ID public, the customer's a plain formatted ID, a count. */
    public record Order(@VestaId(publicId = true) Long id, @VestaId(publicId = true) long parentId,
            @VestaId Long customerId, Long count) {
    }

    @Test
    void publicIdPropertiesAreWrittenInThePublicFormAndReadBack() {
        JsonMapper mapper = JsonMapper.builder().addModule(new VestaIdJacksonModule(IdFormat.BASE32, publicIds)).build();
        Order order = new Order(ID, VERSION_1, ID, 2L);
        String json = mapper.writeValueAsString(order);
        assertThat(json).isEqualTo("{\"id\":\"" + publicIds.toPublic(ID) + "\",\"parentId\":\""
                + publicIds.toPublic(VERSION_1) + "\",\"customerId\":\"" + IdFormat.BASE32.format(ID)
                + "\",\"count\":2}");
        assertThat(json).doesNotContain(Long.toString(ID)).doesNotContain(Long.toUnsignedString(VERSION_1));
        assertThat(mapper.readValue(json, Order.class)).isEqualTo(order);
    }

    @Test
    void publicIdsOnlyLeavesOtherIdsAsNumbers() {
        JsonMapper mapper = JsonMapper.builder().addModule(VestaIdJacksonModule.publicIdsOnly(publicIds)).build();
        Order order = new Order(ID, 1, ID, null);
        String json = mapper.writeValueAsString(order);
        assertThat(json).isEqualTo("{\"id\":\"" + publicIds.toPublic(ID) + "\",\"parentId\":\"" + publicIds.toPublic(1)
                + "\",\"customerId\":" + ID + ",\"count\":null}");
        assertThat(mapper.readValue(json, Order.class)).isEqualTo(order);
    }

    @Test
    void aRawNumberOrADecimalStringIsRefused() {
        JsonMapper mapper = JsonMapper.builder().addModule(new VestaIdJacksonModule(IdFormat.DECIMAL, publicIds)).build();
        String parent = publicIds.toPublic(1);
        assertThatThrownBy(() -> mapper.readValue("{\"id\":" + ID + ",\"parentId\":\"" + parent + "\"}", Order.class))
                .isInstanceOf(MismatchedInputException.class)
                .hasMessageContaining("a public ID is read only from its public form, a JSON string, not from"
                        + " VALUE_NUMBER_INT")
                .hasMessageContaining("Order[\"id\"]");
        assertThatThrownBy(() -> mapper.readValue("{\"id\":\"" + ID + "\",\"parentId\":\"" + parent + "\"}",
                Order.class)).isInstanceOf(InvalidFormatException.class)
                .hasMessageContaining("\"" + ID + "\" is not a public ID: it has 19 characters, a public ID has 17");
        String tampered = (parent.charAt(5) == 'A' ? 'B' : 'A') + "";
        String altered = parent.substring(0, 5) + tampered + parent.substring(6);
        assertThatThrownBy(() -> mapper.readValue("{\"parentId\":\"" + altered + "\"}", Order.class))
                .isInstanceOf(InvalidFormatException.class).hasMessageContaining("fails the check under key ID 3");
    }

    @Test
    void nullsBehaveAsForOtherIds() {
        JsonMapper mapper = JsonMapper.builder().addModule(VestaIdJacksonModule.publicIdsOnly(publicIds)).build();
        assertThat(mapper.readValue("{\"id\":null,\"parentId\":\"" + publicIds.toPublic(0) + "\"}", Order.class))
                .isEqualTo(new Order(null, 0, null, null));
        assertThat(mapper.writeValueAsString(new Order(null, 0, null, null))).startsWith("{\"id\":null,");
        assertThatThrownBy(() -> mapper.readValue("{\"parentId\":null}", Order.class))
                .isInstanceOf(MismatchedInputException.class);
    }

    @Test
    void withoutPublicIdsAPublicIdPropertyIsRefusedNamingItRatherThanWrittenRaw() {
        JsonMapper mapper = JsonMapper.builder().addModule(new VestaIdJacksonModule()).build();
        assertThatThrownBy(() -> mapper.writeValueAsString(new Order(ID, 1, ID, 1L)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("the property " + Order.class.getName() + ".id is @VestaId(publicId = true) but"
                        + " this mapper's VestaIdJacksonModule has no PublicIds");
        assertThatThrownBy(() -> mapper.readValue("{\"id\":\"x\"}", Order.class))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("has no PublicIds");
    }

    /** A receipt whose own ID asks for base 62, beside a plain ID. */
    public record Receipt(@VestaId(format = IdFormat.BASE62) Long id, @VestaId Long orderId) {
    }

    @Test
    void propertiesOwnOnlyServesOwnFormatsRefusesPublicIdsAndLeavesOtherIdsAsNumbers() {
        JsonMapper mapper = JsonMapper.builder().addModule(VestaIdJacksonModule.propertiesOwnOnly()).build();
        String json = mapper.writeValueAsString(new Receipt(ID, ID));
        assertThat(json).isEqualTo("{\"id\":\"" + IdFormat.BASE62.format(ID) + "\",\"orderId\":" + ID + "}");
        assertThat(mapper.readValue(json, Receipt.class)).isEqualTo(new Receipt(ID, ID));
        assertThatThrownBy(() -> mapper.writeValueAsString(new Order(ID, 1, ID, 1L)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining(Order.class.getName() + ".id is @VestaId(publicId = true) but this mapper's"
                        + " VestaIdJacksonModule has no PublicIds");
    }

    /** A public ID with a format as well: two forms for one property. */
    public record Formatted(@VestaId(publicId = true, format = IdFormat.BASE32) Long id) {
    }

    @Test
    void aPublicIdWithAFormatIsRefusedRatherThanOneOfThemIgnored() {
        JsonMapper mapper = JsonMapper.builder().addModule(new VestaIdJacksonModule(IdFormat.BASE62, publicIds)).build();
        assertThatThrownBy(() -> mapper.writeValueAsString(new Formatted(1L)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining(Formatted.class.getName() + ".id is @VestaId(publicId = true) with a format");
    }

    /** A public ID on a String property: not what it converts. */
    public record Misplaced(@VestaId(publicId = true) String code) {
    }

    @Test
    void aPublicIdOnAnotherTypeThanLongIsRefused() {
        JsonMapper mapper = JsonMapper.builder().addModule(VestaIdJacksonModule.publicIdsOnly(publicIds)).build();
        assertThatThrownBy(() -> mapper.writeValueAsString(new Misplaced("a")))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("@VestaId(publicId = true) is on the property " + Misplaced.class.getName()
                        + ".code of type java.lang.String");
    }
}
