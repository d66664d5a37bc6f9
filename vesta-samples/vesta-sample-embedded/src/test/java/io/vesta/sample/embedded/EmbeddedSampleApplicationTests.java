package io.vesta.sample.embedded;

import io.vesta.IdService;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;

@SpringBootTest(args = "--count=3")
@ExtendWith(OutputCaptureExtension.class)
class EmbeddedSampleApplicationTests {

    @Autowired
    private IdService idService;

    @Test
    void printsTheRequestedNumberOfDecodedIdsFromMachineOne(CapturedOutput output) {
        assertThat(output.getOut().lines().filter(line -> line.contains(" -> Id[machine=1, "))).hasSize(3);
        assertThat(idService.expId(idService.genId()).machine()).isEqualTo(1);
        assertThat(idService.expId(idService.genId()).type()).isEqualTo(1);
    }
}
