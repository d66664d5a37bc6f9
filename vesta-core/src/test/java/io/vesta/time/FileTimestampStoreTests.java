package io.vesta.time;

import io.vesta.EmbeddedIdService;
import io.vesta.GenMethod;
import io.vesta.IdType;
import io.vesta.layout.IdCodec;
import io.vesta.layout.IssuingLayout;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class FileTimestampStoreTests {

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

    private static final IssuingLayout MAX_PEAK = new IssuingLayout(0, IdType.MAX_PEAK, GenMethod.EMBEDDED,
            IdCodec.DEFAULT_EPOCH);
    private static final IssuingLayout MIN_GRANULARITY = new IssuingLayout(0, IdType.MIN_GRANULARITY, GenMethod.EMBEDDED,
            IdCodec.DEFAULT_EPOCH);

    @Test
    void eachLayoutKeepsItsOwnMarkAndANewEpochReplacesTheMarkOfItsVersionTypeAndGenMethod() throws Exception {
        FileTimestampStore store = new FileTimestampStore(dir.resolve("mark"));
        store.save(MAX_PEAK, 1_780_000_000_000L);
        store.save(MIN_GRANULARITY, 1_780_000_005_000L);
        IssuingLayout laterEpoch = new IssuingLayout(0, IdType.MAX_PEAK, GenMethod.EMBEDDED, Instant.parse("2020-01-01T00:00:00Z"));
        store.save(laterEpoch, 1_780_000_009_000L);

        assertThat(new FileTimestampStore(dir.resolve("mark")).loadAll()).containsExactlyInAnyOrder(
                new RestartMark(laterEpoch, 1_780_000_009_000L), new RestartMark(MIN_GRANULARITY, 1_780_000_005_000L));
        assertThat(store.load()).hasValue(1_780_000_009_000L);
        assertThat(Files.readString(dir.resolve("mark"))).contains(
                "mark=1780000005000 version=0 type=min-granularity gen-method=embedded epoch=1420041600000\n");
    }

    @Test
    void aBareNumberIsAMarkOfUnknownLayoutUntilALayoutsSaveReplacesIt() throws Exception {
        Files.writeString(dir.resolve("mark"), "1780000000000\n");
        FileTimestampStore store = new FileTimestampStore(dir.resolve("mark"));
        assertThat(store.loadAll()).containsExactly(new RestartMark(null, 1_780_000_000_000L));

        store.save(MAX_PEAK, 1_780_000_003_000L);

        assertThat(store.loadAll()).containsExactly(new RestartMark(MAX_PEAK, 1_780_000_003_000L));
    }

    @Test
    void filesOfTheFormerNamingAreReadAsMarksOfTheirNamesLayoutForBothVersions() throws Exception {
        Files.writeString(dir.resolve("vesta-max-peak-machine-7-embedded-epoch-1420041600000.mark"), "1780000000000\n");
        Files.writeString(dir.resolve("vesta-max-peak-machine-17-embedded-epoch-1420041600000.mark"), "1790000000000\n");
        Files.writeString(dir.resolve("vesta-max-peak-machine-7-rest-epoch-1420041600000.mark"), "1790000000000\n");
        FileTimestampStore store = FileTimestampStore.forGenerator(dir, IdType.MIN_GRANULARITY, 7, GenMethod.EMBEDDED,
                IdCodec.DEFAULT_EPOCH);

        assertThat(store.file().getFileName()).hasToString("vesta-machine-7-embedded.mark");
        assertThat(store.loadAll()).containsExactlyInAnyOrder(new RestartMark(MAX_PEAK, 1_780_000_000_000L),
                new RestartMark(new IssuingLayout(1, IdType.MAX_PEAK, GenMethod.EMBEDDED, IdCodec.DEFAULT_EPOCH),
                        1_780_000_000_000L));
    }

    @Test
    void aLineThatIsNeitherIsRefusedNamingTheFileAndTheFormat() throws Exception {
        Files.writeString(dir.resolve("mark"), "mark=1780000000000 version=0 type=max-peak\n");
        assertThatThrownBy(() -> new FileTimestampStore(dir.resolve("mark")).loadAll())
                .isInstanceOf(IllegalStateException.class).hasMessageContaining(dir.resolve("mark").toString())
                .hasMessageContaining("no gen-method");
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
