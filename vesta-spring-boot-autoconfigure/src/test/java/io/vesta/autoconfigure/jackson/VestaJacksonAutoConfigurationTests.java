package io.vesta.autoconfigure.jackson;

import io.vesta.IdFormat;
import io.vesta.InvalidSettingException;
import io.vesta.VestaId;
import io.vesta.jackson.VestaIdJacksonModule;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.http.converter.autoconfigure.HttpMessageConvertersAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.webmvc.autoconfigure.WebMvcAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.MediaType;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.setup.MockMvcBuilders;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.context.WebApplicationContext;
import tools.jackson.databind.JacksonModule;

import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.content;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

/** IDs as strings, seen the way a browser sees them: through Spring MVC's JSON. */
class VestaJacksonAutoConfigurationTests {

    /** Above 2^53: a JavaScript number would round it to 1234567890123456800. */
    static final long ID = 1234567890123456789L;

    private final WebApplicationContextRunner runner = new WebApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class,
                    HttpMessageConvertersAutoConfiguration.class, WebMvcAutoConfiguration.class,
                    VestaJacksonAutoConfiguration.class))
            .withUserConfiguration(Tickets.class);

    @Test
    void idsStayJsonNumbersByDefault() {
        runner.run(context -> {
            assertThat(context.getBean(VestaIdJacksonModule.class).format()).isEqualTo(IdFormat.DECIMAL);
            mvc(context).perform(get("/ticket")).andExpect(status().isOk())
                    .andExpect(content().string("{\"id\":" + ID + ",\"parentId\":" + (ID + 1) + ",\"count\":7}"));
        });
    }

    @Test
    void withIdsAsStringsVestaIdPropertiesAreWrittenAsStringsAndOthersAreNot() {
        runner.withPropertyValues("vesta.jackson.ids-as-strings=true").run(context -> {
            assertThat(context).hasSingleBean(VestaIdJacksonModule.class);
            mvc(context).perform(get("/ticket")).andExpect(status().isOk())
                    .andExpect(content().string("{\"id\":\"" + ID + "\",\"parentId\":\"" + (ID + 1) + "\",\"count\":7}"));
        });
    }

    @Test
    void withIdsAsStringsVestaIdPropertiesAreReadFromStringsAndFromNumbers() {
        runner.withPropertyValues("vesta.jackson.ids-as-strings=true").run(context -> {
            MockMvc mvc = mvc(context);
            String asStrings = "{\"id\":\"" + ID + "\",\"parentId\":\"" + (ID + 1) + "\",\"count\":3}";
            String asNumbers = "{\"id\":" + ID + ",\"parentId\":" + (ID + 1) + ",\"count\":3}";
            for (String body : new String[] { asStrings, asNumbers }) {
                mvc.perform(post("/ticket").contentType(MediaType.APPLICATION_JSON).content(body))
                        .andExpect(status().isOk()).andExpect(content().string(asStrings));
            }
        });
    }

    @Test
    void idsAsStringsAloneWritesDecimalDigits() {
        runner.withPropertyValues("vesta.jackson.ids-as-strings=true")
                .run(context -> assertThat(context.getBean(VestaIdJacksonModule.class).format()).isEqualTo(IdFormat.DECIMAL));
    }

    @Test
    void anIdFormatWritesAndReadsIdsInItAndTurnsStringsOn() {
        String base32 = "{\"id\":\"" + IdFormat.BASE32.format(ID) + "\",\"parentId\":\"" + IdFormat.BASE32.format(ID + 1)
                + "\",\"count\":7}";
        for (String[] properties : new String[][] { { "vesta.jackson.id-format=base32" },
                { "vesta.jackson.ids-as-strings=true", "vesta.jackson.id-format=BASE32" } }) {
            runner.withPropertyValues(properties).run(context -> {
                assertThat(context.getBean(VestaIdJacksonModule.class).format()).isEqualTo(IdFormat.BASE32);
                MockMvc mvc = mvc(context);
                mvc.perform(get("/ticket")).andExpect(status().isOk()).andExpect(content().string(base32));
                mvc.perform(post("/ticket").contentType(MediaType.APPLICATION_JSON).content(base32))
                        .andExpect(status().isOk()).andExpect(content().string(base32));
            });
        }
    }

    @Test
    void anUnknownIdFormatIsRefusedNamingThePropertyTheValueAndTheAllowedNames() {
        runner.withPropertyValues("vesta.jackson.ids-as-strings=true", "vesta.jackson.id-format=base36").run(context ->
                assertThat(context).getFailure().rootCause().isInstanceOf(InvalidSettingException.class)
                        .hasMessage("vesta.jackson.id-format=base36 is not an ID format; allowed: decimal, base32, base62"));
    }

    @Test
    void anIdFormatWithIdsAsStringsFalseIsRefusedRatherThanIgnored() {
        runner.withPropertyValues("vesta.jackson.ids-as-strings=false", "vesta.jackson.id-format=base62").run(context ->
                assertThat(context).getFailure().rootCause().isInstanceOf(InvalidSettingException.class)
                        .hasMessageStartingWith("vesta.jackson.id-format=base62 is set but vesta.jackson.ids-as-strings=false"));
    }

    /** A property's own format is what it asked for: it holds without ids-as-strings, while other IDs stay numbers. */
    @Test
    void aPropertysOwnFormatAppliesWithoutIdsAsStrings() {
        runner.run(context -> {
            String base32 = IdFormat.BASE32.format(ID);
            mvc(context).perform(get("/receipt")).andExpect(status().isOk())
                    .andExpect(content().string("{\"id\":\"" + base32 + "\",\"orderId\":" + ID + "}"));
            mvc(context).perform(post("/receipt").contentType(MediaType.APPLICATION_JSON)
                            .content("{\"id\":\"" + base32.toLowerCase() + "\",\"orderId\":" + ID + "}"))
                    .andExpect(status().isOk())
                    .andExpect(content().string("{\"id\":\"" + base32 + "\",\"orderId\":" + ID + "}"));
        });
    }

    @Test
    void withoutJacksonThereIsNoModule() {
        new WebApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(VestaJacksonAutoConfiguration.class))
                .withPropertyValues("vesta.jackson.ids-as-strings=true")
                .withClassLoader(new FilteredClassLoader(JacksonModule.class))
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(VestaIdJacksonModule.class));
    }

    private static MockMvc mvc(WebApplicationContext context) {
        return MockMvcBuilders.webAppContextSetup(context).build();
    }

    /** A response a JavaScript client would read: two Vesta IDs and a plain count. */
    public record Ticket(@VestaId Long id, @VestaId long parentId, Long count) {
    }

    /** A receipt whose own ID asks for base 32, beside a plain ID. */
    public record Receipt(@VestaId(format = IdFormat.BASE32) Long id, @VestaId Long orderId) {
    }

    @Configuration(proxyBeanMethods = false)
    static class Tickets {

        @Bean
        TicketController ticketController() {
            return new TicketController();
        }
    }

    @RestController
    static class TicketController {

        @GetMapping("/ticket")
        Ticket ticket() {
            return new Ticket(ID, ID + 1, 7L);
        }

        @PostMapping("/ticket")
        Ticket echo(@RequestBody Ticket ticket) {
            return ticket;
        }

        @GetMapping("/receipt")
        Receipt receipt() {
            return new Receipt(ID, ID);
        }

        @PostMapping("/receipt")
        Receipt echo(@RequestBody Receipt receipt) {
            return receipt;
        }
    }
}
