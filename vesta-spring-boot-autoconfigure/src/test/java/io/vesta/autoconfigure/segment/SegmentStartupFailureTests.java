package io.vesta.autoconfigure.segment;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;

/** A bad {@code vesta.segment.*} property stops start-up with Spring Boot's failure report naming it. */
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

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class App {
    }
}
