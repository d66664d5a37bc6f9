package io.vesta.jackson;

import com.fasterxml.jackson.annotation.JsonFormat;
import io.vesta.VestaId;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;

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
}
