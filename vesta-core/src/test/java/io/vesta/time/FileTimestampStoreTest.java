package io.vesta.time;

import io.vesta.EmbeddedIdService;
import io.vesta.IdType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class FileTimestampStoreTest {

    @TempDir
    Path dir;

    @Test
    void aMarkSurvivesAndIsReadBack() {
        FileTimestampStore store = new FileTimestampStore(dir.resolve("sub/mark"));
        assertThat(store.load()).isEmpty();
        store.save(1_780_000_000_000L);
        assertThat(new FileTimestampStore(dir.resolve("sub/mark")).load()).hasValue(1_780_000_000_000L);
        assertThat(dir.resolve("sub/mark.tmp")).doesNotExist();
    }

    @Test
    void anOpenStoreCannotBeOpenedAgainInThisProcessUntilClosed() {
        FileTimestampStore first = new FileTimestampStore(dir.resolve("mark"));
        first.open();
        FileTimestampStore second = new FileTimestampStore(dir.resolve("mark"));
        assertThatThrownBy(second::open).isInstanceOf(IllegalStateException.class)
                .hasMessage("The timestamp store " + dir.resolve("mark") + " is in use by another generator (its lock "
                        + dir.resolve("mark.lock") + " is held, by another process or another generator in this one)");
        first.close();
        first.close();
        second.open();
        second.close();
    }

    /**
     * The lock holds across processes, and the operating system drops it when the holder dies: another JVM holds
     * the store of machine ID 6 until it is killed.
     */
    @Test
    void aSecondProcessOnTheSameFileRefusesToStartUntilTheFirstIsGone() throws Exception {
        Path file = dir.resolve("mark");
        String java = ProcessHandle.current().info().command().orElse("java");
        Process holder = new ProcessBuilder(List.of(java, "-cp", System.getProperty("java.class.path"),
                StoreHolder.class.getName(), file.toString())).redirectErrorStream(true).start();
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(holder.getInputStream(), StandardCharsets.UTF_8));
            assertThat(out.readLine()).isEqualTo("holding");

            assertThatThrownBy(() -> StoreHolder.build(file).close())
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageStartingWith("Cannot start the generator of machine ID 6: The timestamp store " + file)
                    .hasMessageContaining("Two generators under one machine ID would issue the same IDs");
        } finally {
            holder.destroyForcibly();
            assertThat(holder.waitFor(30, TimeUnit.SECONDS)).isTrue();
        }
        try (EmbeddedIdService after = StoreHolder.build(file)) {
            assertThat(after.genId()).isPositive();
        }
    }

    /** The other process: builds a generator on the file, says so, and waits to be killed. */
    public static final class StoreHolder {

        static EmbeddedIdService build(Path file) {
            return EmbeddedIdService.builder().type(IdType.MAX_PEAK).machineId(6).timestampStore(new FileTimestampStore(file))
                    .build();
        }

        public static void main(String[] args) throws Exception {
            EmbeddedIdService service = build(Path.of(args[0]));
            service.genId();
            System.out.println("holding");
            System.out.flush();
            Thread.sleep(TimeUnit.MINUTES.toMillis(2)); // bounded: killed by the test long before
            service.close();
        }
    }
}
