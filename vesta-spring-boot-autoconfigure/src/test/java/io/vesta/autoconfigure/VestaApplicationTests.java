package io.vesta.autoconfigure;

import io.vesta.Id;
import io.vesta.IdService;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;

import java.time.Duration;
import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;

@SpringBootTest(properties = { "vesta.type=min-granularity", "vesta.machine-id.value=77", "vesta.sequencer=synchronized" })
class VestaApplicationTests {

    @Autowired
    private IdService idService;

    @Test
    void injectedIdServiceIssuesIdsThatDecodeToTheConfiguredFields() {
        Instant before = Instant.now();
        long[] ids = idService.genIds(3);
        long single = idService.genId();

        assertThat(ids).isSorted().doesNotHaveDuplicates();
        assertThat(single).isGreaterThan(ids[2]);
        Id fields = idService.expId(single);
        assertThat(fields.machine()).isEqualTo(77);
        assertThat(fields.type()).isEqualTo(1);
        assertThat(fields.genMethod()).isZero();
        assertThat(fields.version()).isZero();
        assertThat(idService.transTime(fields.time())).isBetween(before.minusMillis(1), Instant.now().plus(Duration.ofMillis(1)));
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class App {
    }
}
