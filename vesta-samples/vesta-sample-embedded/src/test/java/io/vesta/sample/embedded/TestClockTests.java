package io.vesta.sample.embedded;

import io.vesta.EmbeddedIdService;
import io.vesta.IdService;
import io.vesta.IdType;
import io.vesta.autoconfigure.test.AutoConfigureVesta;
import io.vesta.test.ManualTimeSource;
import io.vesta.time.TimeSource;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A {@code @SpringBootTest} with a clock of its own, a day ahead. With {@link AutoConfigureVesta} it keeps no
 * high-water mark, so a later run under the same machine ID, on the real clock, starts.
 */
@SpringBootTest(args = "--count=1")
@AutoConfigureVesta(machineId = 11)
class TestClockTests {

    @Autowired
    private IdService idService;

    @Test
    void aTestWhoseClockRunsAheadLeavesNoMarkThatALaterRunUnderItsMachineIdRefuses() {
        assertThat(idService.expId(idService.genId()).machine()).isEqualTo(11);

        try (EmbeddedIdService later = EmbeddedIdService.builder().type(IdType.MIN_GRANULARITY).machineId(11)
                .timestampStoreDirectory(Path.of(System.getProperty("java.io.tmpdir"), "vesta")).build()) {
            assertThat(later.expId(later.genId()).machine()).isEqualTo(11);
        }
    }

    @TestConfiguration(proxyBeanMethods = false)
    static class ClockADayAhead {

        @Bean
        TimeSource clockADayAhead() {
            return new ManualTimeSource(Instant.now().plus(Duration.ofDays(1)));
        }
    }
}
