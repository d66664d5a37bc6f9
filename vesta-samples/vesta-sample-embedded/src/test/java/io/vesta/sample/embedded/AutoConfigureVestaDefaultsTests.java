package io.vesta.sample.embedded;

import io.vesta.EmbeddedIdService;
import io.vesta.autoconfigure.test.AutoConfigureVesta;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;

import static org.assertj.core.api.Assertions.assertThat;

/** {@link AutoConfigureVesta} with nothing set: the application's machine ID, and no high-water mark. */
@SpringBootTest(args = "--count=1")
@AutoConfigureVesta
class AutoConfigureVestaDefaultsTests {

    @Autowired
    private EmbeddedIdService idService;

    @Test
    void theApplicationsMachineIdIsKept() {
        assertThat(idService.machineId()).as("vesta.machine-id.value in application.properties").isEqualTo(1);
    }

    @Test
    void theTestKeepsNoHighWaterMark() {
        assertThat(idService.timestampStore()).isNull();
    }
}
