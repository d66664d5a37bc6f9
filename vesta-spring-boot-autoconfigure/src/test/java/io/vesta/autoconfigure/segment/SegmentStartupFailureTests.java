package io.vesta.autoconfigure.segment;

import io.vesta.InvalidSettingException;
import io.vesta.autoconfigure.VestaAutoConfiguration;
import io.vesta.segment.SegmentIdService;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.datasource.SimpleDriverDataSource;

import javax.sql.DataSource;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;

/** A bad {@code vesta.segment.*} property, or segment mode with no DataSource to use, stops start-up with a report naming it. */
@ExtendWith(OutputCaptureExtension.class)
class SegmentStartupFailureTests {

    private static String start(CapturedOutput output, String... properties) {
        String database = "vesta_segment_" + UUID.randomUUID().toString().replace("-", "").substring(0, 10);
        assertThatException().isThrownBy(() -> new SpringApplicationBuilder(App.class)
                .web(WebApplicationType.NONE).properties(properties)
                .properties("spring.main.banner-mode=off", "vesta.machine-id.value=5", "vesta.segment.enabled=true",
                        "spring.datasource.url=jdbc:h2:mem:" + database + ";DB_CLOSE_DELAY=-1")
                .run().close());
        assertThat(output).contains("APPLICATION FAILED TO START");
        return output.getOut() + output.getErr();
    }

    @Test
    void maxStepOutOfRange(CapturedOutput output) {
        assertThat(start(output, "vesta.segment.max-step=0"))
                .contains("Vesta cannot start: the property 'vesta.segment.max-step' is '0'.")
                .contains("vesta.segment.max-step=0 is out of range; allowed: a value in [1, 1000000000]")
                .contains("Set 'vesta.segment.max-step' to a value in [1, 1000000000].");
    }

    @Test
    void tableThatIsNotAnIdentifier(CapturedOutput output) {
        assertThat(start(output, "vesta.segment.table=orders; DROP TABLE users"))
                .contains("Vesta cannot start: the property 'vesta.segment.table' is 'orders; DROP TABLE users'.")
                .contains("is not an unquoted SQL identifier")
                .contains("Set 'vesta.segment.table' to an unquoted SQL identifier");
    }

    /** The property was a boolean before it took Boot's modes: an old value says which values it takes now. */
    @Test
    void aBooleanInitializeSchemaIsRefusedListingTheModes(CapturedOutput output) {
        assertThat(start(output, "vesta.segment.initialize-schema=true"))
                .contains("Failed to bind properties under 'vesta.segment.initialize-schema'")
                .contains("Value: \"true\"")
                .containsSubsequence("The following values are valid:", "ALWAYS", "EMBEDDED", "NEVER");
    }

    @Test
    void segmentModeWithoutADataSourceFailsNamingTheProperty(CapturedOutput output) {
        assertThatException().isThrownBy(() -> new SpringApplicationBuilder(App.class).web(WebApplicationType.NONE)
                .properties("spring.main.banner-mode=off", "vesta.machine-id.value=5", "vesta.segment.enabled=true",
                        "spring.autoconfigure.exclude=org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration")
                .run().close());
        assertThat(output.getOut() + output.getErr()).contains("APPLICATION FAILED TO START")
                .contains("Vesta cannot start: the property 'vesta.segment.enabled' is 'true'.")
                .contains("needs a DataSource and the application has none")
                .contains("Set 'vesta.segment.enabled' to false, or true with one DataSource to use (spring.datasource.url,"
                        + " or a DataSource bean; of several, one marked @Primary).");
    }

    @Test
    void segmentModeWithTwoDataSourcesAndNoPrimaryFailsNamingThem() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(VestaAutoConfiguration.class, VestaSegmentAutoConfiguration.class))
                .withUserConfiguration(TwoDataSources.class)
                .withPropertyValues("vesta.machine-id.value=5", "vesta.segment.enabled=true")
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(context.getStartupFailure()).rootCause().isInstanceOfSatisfying(InvalidSettingException.class,
                            e -> {
                                assertThat(e.setting()).isEqualTo("vesta.segment.enabled");
                                assertThat(e.value()).isEqualTo(true);
                                assertThat(e.getMessage()).contains("needs one DataSource and the application has 2, none of"
                                        + " them primary: orders, audit");
                            });
                });
    }

    @Test
    void anApplicationsOwnSegmentIdServiceIsLeftAloneWithoutADataSource() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(VestaAutoConfiguration.class, VestaSegmentAutoConfiguration.class))
                .withBean(SegmentIdService.class, () -> SegmentIdService.builder()
                        .dataSource(new SimpleDriverDataSource(new org.h2.Driver(), "jdbc:h2:mem:own")).build())
                .withPropertyValues("vesta.machine-id.value=5", "vesta.segment.enabled=true")
                .run(context -> assertThat(context).hasNotFailed().hasSingleBean(SegmentIdService.class));
    }

    @Configuration(proxyBeanMethods = false)
    static class TwoDataSources {

        @Bean
        DataSource orders() {
            return new SimpleDriverDataSource(new org.h2.Driver(), "jdbc:h2:mem:orders");
        }

        @Bean
        DataSource audit() {
            return new SimpleDriverDataSource(new org.h2.Driver(), "jdbc:h2:mem:audit");
        }
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class App {
    }
}
