package io.vesta.machine;

import io.vesta.time.AtomicFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Properties;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class MachineIdCacheFileTests {

    @TempDir
    Path dir;

    @Test
    void aRecordIsReadBackFieldForFieldEvenWithSeparatorsInTheOwner() throws Exception {
        MachineIdCacheFile cache = new MachineIdCacheFile(dir.resolve("vesta/default/node.machine-id"));
        cache.write(new MachineIdCacheFile.Entry("host@10.0.0.1:8080=a\\b", "default",
                "/vesta/default/forever/host@10.0.0.1:8080-0000000003", 3, 8, 1_780_000_000_000L, 1_780_000_030_000L, false));

        Properties fields = cache.read();
        assertThat(fields.getProperty("owner")).isEqualTo("host@10.0.0.1:8080=a\\b");
        assertThat(fields.getProperty("namespace")).isEqualTo("default");
        assertThat(fields.getProperty("path")).isEqualTo("/vesta/default/forever/host@10.0.0.1:8080-0000000003");
        assertThat(fields.getProperty("machineId")).isEqualTo("3");
        assertThat(fields.getProperty("blockSize")).isEqualTo("8");
        assertThat(fields.getProperty("time")).isEqualTo("1780000000000");
        assertThat(fields.getProperty("until")).isEqualTo("1780000030000");
        assertThat(fields.getProperty("closed")).isEqualTo("false");
        assertThat(AtomicFile.temporaryOf(cache.file())).doesNotExist();
    }

    @Test
    void aNewRecordReplacesTheOldOneWhole() throws Exception {
        MachineIdCacheFile cache = new MachineIdCacheFile(dir.resolve("node.machine-id"));
        cache.write(new MachineIdCacheFile.Entry("a", "n", "/p", 1, 1, 10, 20, false));
        cache.write(new MachineIdCacheFile.Entry("a", "n", "/p", 1, 1, 30, 31, true));

        Properties fields = cache.read();
        assertThat(fields.getProperty("time")).isEqualTo("30");
        assertThat(fields.getProperty("until")).isEqualTo("31");
        assertThat(fields.getProperty("closed")).isEqualTo("true");
    }

    @Test
    void nothingCachedYetIsNoSuchFile() {
        assertThatThrownBy(() -> new MachineIdCacheFile(dir.resolve("none")).read()).isInstanceOf(NoSuchFileException.class);
    }
}
