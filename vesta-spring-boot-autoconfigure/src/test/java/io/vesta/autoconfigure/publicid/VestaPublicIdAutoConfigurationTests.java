package io.vesta.autoconfigure.publicid;

import io.vesta.InvalidSettingException;
import io.vesta.PublicIds;
import io.vesta.VestaId;
import io.vesta.autoconfigure.jackson.VestaJacksonAutoConfiguration;
import io.vesta.jackson.VestaIdJacksonModule;
import io.vesta.publicid.Ff1PublicIds;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.Base64;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@code vesta.public-id.*}: the PublicIds bean, its checks at start-up, and Jackson's use of it. */
class VestaPublicIdAutoConfigurationTests {

    static final String KEY_1 = Base64.getEncoder().encodeToString(new byte[16]);
    static final String KEY_2 = Base64.getEncoder().encodeToString("0123456789abcdef0123456789abcdef".getBytes());
    static final long ID = 2709772636019233692L;

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(VestaPublicIdAutoConfiguration.class));

    @Test
    void offByDefault() {
        runner.withPropertyValues("vesta.public-id.keys.1=" + KEY_1)
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(PublicIds.class));
    }

    @Test
    void enabledWithOneKeyMakesThePublicIdsBeanUnderThatKey() {
        runner.withPropertyValues("vesta.public-id.enabled=true", "vesta.public-id.keys.7=" + KEY_1).run(context -> {
            PublicIds publicIds = context.getBean(PublicIds.class);
            String shown = publicIds.toPublic(ID);
            assertThat(shown).hasSize(Ff1PublicIds.LENGTH).startsWith("7");
            assertThat(publicIds.fromPublic(shown)).isEqualTo(ID);
        });
    }

    @Test
    void theCurrentKeyWritesAndEveryKeyReads() {
        String old = Ff1PublicIds.builder().key(1, new byte[16]).build().toPublic(ID);
        runner.withPropertyValues("vesta.public-id.enabled=true", "vesta.public-id.keys.1=" + KEY_1,
                "vesta.public-id.keys.2=" + KEY_2, "vesta.public-id.current-key=2").run(context -> {
                    PublicIds publicIds = context.getBean(PublicIds.class);
                    assertThat(publicIds.fromPublic(old)).isEqualTo(ID);
                    assertThat(publicIds.toPublic(ID)).startsWith("2");
                });
    }

    @Test
    void theTweakChangesThePublicForms() {
        runner.withPropertyValues("vesta.public-id.enabled=true", "vesta.public-id.keys.1=" + KEY_1,
                "vesta.public-id.tweak=shop").run(context -> assertThat(context.getBean(PublicIds.class).toPublic(ID))
                        .isEqualTo(Ff1PublicIds.builder().key(1, new byte[16]).tweak("shop").build().toPublic(ID))
                        .isNotEqualTo(Ff1PublicIds.builder().key(1, new byte[16]).build().toPublic(ID)));
    }

    @Test
    void aKeyOfTheWrongLengthIsRefusedByItsLengthNeverItsValue() {
        String twentyBytes = Base64.getEncoder().encodeToString("secret-secret-secret".getBytes());
        refused("vesta.public-id.keys.1=" + twentyBytes, "vesta.public-id.keys.1=(a key of 20 bytes, not shown) has"
                + " the wrong length; allowed: an AES key of 16, 24 or 32 bytes", twentyBytes);
    }

    @Test
    void aKeyThatIsNotBase64IsRefusedWithoutShowingIt() {
        refused("vesta.public-id.keys.1=not*base64!", "vesta.public-id.keys.1=(11 characters, not shown) is not base"
                + " 64; allowed: an AES key of 16, 24 or 32 bytes in base 64", "not*base64!");
    }

    @Test
    void aKeyIdOutOfRangeIsRefused() {
        refused("vesta.public-id.keys.32=" + KEY_1, "vesta.public-id.keys.32=(a key, not shown) has a key ID out of"
                + " range; allowed: key IDs in [0, 31]", KEY_1);
        refused("vesta.public-id.keys.x=" + KEY_1, "vesta.public-id.keys.x=(a key, not shown) has a key ID out of"
                + " range; allowed: key IDs in [0, 31]", KEY_1);
    }

    @Test
    void noKeyOrAnUnknownCurrentKeyIsRefused() {
        runner.withPropertyValues("vesta.public-id.enabled=true").run(context -> assertThat(context).getFailure()
                .rootCause().isInstanceOf(InvalidSettingException.class)
                .hasMessageStartingWith("vesta.public-id.keys=(unset) is required"));
        refused("vesta.public-id.current-key=5", "vesta.public-id.current-key=5 names no configured key; allowed: one of"
                + " the configured key IDs [1]", KEY_1);
    }

    @Test
    void enabledWithoutTheModuleFailsRatherThanLeavingPublicIdsOff() {
        runner.withPropertyValues("vesta.public-id.enabled=true", "vesta.public-id.keys.1=" + KEY_1)
                .withClassLoader(new FilteredClassLoader(Ff1PublicIds.class)).run(context -> assertThat(context)
                        .getFailure().rootCause().isInstanceOf(InvalidSettingException.class)
                        .hasMessageContaining("vesta.public-id.enabled=true needs io.vesta:vesta-public-id"));
    }

    /** An API response with a public ID, a plain ID and a count. */
    public record Order(@VestaId(publicId = true) Long id, @VestaId Long customerId, Long count) {
    }

    private final ApplicationContextRunner withJackson = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class,
                    VestaPublicIdAutoConfiguration.class, VestaJacksonAutoConfiguration.class))
            .withPropertyValues("vesta.public-id.enabled=true", "vesta.public-id.keys.1=" + KEY_1);

    @Test
    void jacksonWritesPublicIdsWithoutIdsAsStrings() {
        withJackson.run(context -> {
            JsonMapper mapper = context.getBean(JsonMapper.class);
            String shown = context.getBean(PublicIds.class).toPublic(ID);
            String json = mapper.writeValueAsString(new Order(ID, ID, 1L));
            assertThat(json).isEqualTo("{\"id\":\"" + shown + "\",\"customerId\":" + ID + ",\"count\":1}");
            assertThat(mapper.readValue(json, Order.class)).isEqualTo(new Order(ID, ID, 1L));
        });
    }

    @Test
    void jacksonWritesPublicIdsBesideIdsAsStrings() {
        withJackson.withPropertyValues("vesta.jackson.ids-as-strings=true").run(context -> {
            assertThat(context).hasSingleBean(VestaIdJacksonModule.class);
            String shown = context.getBean(PublicIds.class).toPublic(ID);
            assertThat(context.getBean(JsonMapper.class).writeValueAsString(new Order(ID, ID, 1L)))
                    .isEqualTo("{\"id\":\"" + shown + "\",\"customerId\":\"" + ID + "\",\"count\":1}");
        });
    }

    @Test
    void withIdsAsStringsButNoPublicIdsAPublicIdPropertyIsRefusedNamingIt() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class,
                        VestaPublicIdAutoConfiguration.class, VestaJacksonAutoConfiguration.class))
                .withPropertyValues("vesta.jackson.ids-as-strings=true").run(context -> {
                    JsonMapper mapper = context.getBean(JsonMapper.class);
                    assertThatThrownBy(() -> mapper.writeValueAsString(new Order(ID, ID, 1L)))
                            .hasMessageContaining(Order.class.getName() + ".id is @VestaId(publicId = true) but this"
                                    + " mapper's VestaIdJacksonModule has no PublicIds");
                });
    }

    /**
     * Neither strings nor public IDs configured: a property that asks to be shown only in its public form must not go
     * out as the raw, time-ordered ID; the mapper refuses it, naming it.
     */
    @Test
    void withoutIdsAsStringsOrPublicIdsAPublicIdPropertyIsRefusedRatherThanWrittenAsTheRawId() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class,
                        VestaPublicIdAutoConfiguration.class, VestaJacksonAutoConfiguration.class))
                .run(context -> {
                    JsonMapper mapper = context.getBean(JsonMapper.class);
                    assertThatThrownBy(() -> mapper.writeValueAsString(new Order(ID, ID, 1L)))
                            .hasMessageContaining(Order.class.getName() + ".id is @VestaId(publicId = true) but this"
                                    + " mapper's VestaIdJacksonModule has no PublicIds");
                    assertThatThrownBy(() -> mapper.readValue("{\"id\":" + ID + "}", Order.class))
                            .hasMessageContaining(Order.class.getName() + ".id is @VestaId(publicId = true)");
                });
    }

    private void refused(String property, String message, String secret) {
        runner.withPropertyValues("vesta.public-id.enabled=true", "vesta.public-id.keys.1=" + KEY_1, property)
                .run(context -> {
                    assertThat(context).getFailure().rootCause().isInstanceOf(InvalidSettingException.class)
                            .hasMessage(message);
                    StringWriter trace = new StringWriter();
                    context.getStartupFailure().printStackTrace(new PrintWriter(trace));
                    assertThat(trace.toString()).contains(message).doesNotContain(secret).doesNotContain(KEY_1);
                });
    }
}
